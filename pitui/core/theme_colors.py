"""The colour syntaxes of pi 1.6 theme files, converted to ``#rrggbb``.

``#rgb`` / ``#rrggbb`` (sRGB), ``oklch(L[%] C H[deg])`` (perceptual lightness, chroma,
hue; out-of-gamut colours keep their lightness and hue and lose chroma until they fit)
and ``okhsl(H[deg] S[%] L[%])`` (Björn Ottosson's OKHSL: saturation relative to the
most the sRGB gamut allows at that hue and lightness, so every value is in gamut).
The Oklab matrices and the OKHSL gamut approximations are Ottosson's published ones
(https://bottosson.github.io/posts/oklab/ and /posts/colorpicker/, MIT licensed).
"""

from __future__ import annotations

import math
import re
from functools import cache

_NUMBER = r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:e[+-]?\d+)?"


@cache
def _function_patterns() -> tuple[re.Pattern[str], re.Pattern[str]]:
    """The ``oklch()`` and ``okhsl()`` patterns, compiled when a theme first uses one
    (the built-in themes are hex: their compilation would be on every first frame)."""
    oklch = rf"^oklch\(\s*({_NUMBER})(%)?\s+({_NUMBER})\s+({_NUMBER})(?:deg)?\s*\)$"
    okhsl = rf"^okhsl\(\s*({_NUMBER})(?:deg)?\s+({_NUMBER})(%)?\s+({_NUMBER})(%)?\s*\)$"
    return re.compile(oklch, re.I), re.compile(okhsl, re.I)


_HEX = re.compile(r"^#([0-9a-f]{3}|[0-9a-f]{6})$", re.I)
FUNCTION_PREFIX = re.compile(r"^ok(lch|hsl)\(", re.I)
"""How a value that is a colour function (not a variable name) starts."""

Vector = tuple[float, float, float]


def _oklab_to_linear_srgb(lightness: float, a: float, b: float) -> Vector:
    l_ = lightness + 0.3963377774 * a + 0.2158037573 * b
    m_ = lightness - 0.1055613458 * a - 0.0638541728 * b
    s_ = lightness - 0.0894841775 * a - 1.2914855480 * b
    lc, mc, sc = l_**3, m_**3, s_**3
    return (
        4.0767416621 * lc - 3.3077115913 * mc + 0.2309699292 * sc,
        -1.2684380046 * lc + 2.6097574011 * mc - 0.3413193965 * sc,
        -0.0041960863 * lc - 0.7034186147 * mc + 1.7076147010 * sc,
    )


def _encode(linear: Vector) -> str:
    """Linear sRGB (0-1, clipped) → ``#rrggbb``."""

    def channel(value: float) -> int:
        value = min(1.0, max(0.0, value))
        encoded = 1.055 * value ** (1 / 2.4) - 0.055 if value > 0.0031308 else 12.92 * value
        return round(min(1.0, max(0.0, encoded)) * 255)

    return "#" + "".join(f"{channel(v):02x}" for v in linear)


def _in_gamut(linear: Vector) -> bool:
    return all(-1e-7 <= v <= 1 + 1e-7 for v in linear)


def oklch_to_hex(lightness: float, chroma: float, hue: float) -> str:
    """OKLCH → ``#rrggbb``, reducing chroma (bisection) until the colour is in gamut."""
    cos, sin = math.cos(math.radians(hue)), math.sin(math.radians(hue))

    def at(c: float) -> Vector:
        return _oklab_to_linear_srgb(lightness, c * cos, c * sin)

    direct = at(chroma)
    if _in_gamut(direct):
        return _encode(direct)
    best, low, high = at(0.0), 0.0, chroma
    for _ in range(20):
        middle = (low + high) / 2
        candidate = at(middle)
        if _in_gamut(candidate):
            low, best = middle, candidate
        else:
            high = middle
    return _encode(best)


# ----------------------------------------------------------------- OKHSL (Ottosson)

_K1, _K2 = 0.206, 0.03
_K3 = (1 + _K1) / (1 + _K2)


def _toe_inv(x: float) -> float:
    return (x * x + _K1 * x) / (_K3 * (x + _K2))


def _lms_slopes(a: float, b: float) -> Vector:
    return (
        0.3963377774 * a + 0.2158037573 * b,
        -0.1055613458 * a - 0.0638541728 * b,
        -0.0894841775 * a - 1.2914855480 * b,
    )


_TO_RGB = (
    (4.0767416621, -3.3077115913, 0.2309699292),
    (-1.2684380046, 2.6097574011, -0.3413193965),
    (-0.0041960863, -0.7034186147, 1.7076147010),
)


def _max_saturation(a: float, b: float) -> float:
    """The largest C/L inside sRGB for the hue (a, b): a fit, then one Halley step."""
    if -1.88170328 * a - 0.80936493 * b > 1:
        k, w = (1.19086277, 1.76576728, 0.59662641, 0.75515197, 0.56771245), _TO_RGB[0]
    elif 1.81444104 * a - 1.19445276 * b > 1:
        k, w = (0.73956515, -0.45954404, 0.08285427, 0.12541070, 0.14503204), _TO_RGB[1]
    else:
        k, w = (1.35733652, -0.00915799, -1.15130210, -0.50559606, 0.00692167), _TO_RGB[2]
    s = k[0] + k[1] * a + k[2] * b + k[3] * a * a + k[4] * a * b
    slopes = _lms_slopes(a, b)
    base = [1 + s * slope for slope in slopes]
    f = sum(wi * v**3 for wi, v in zip(w, base, strict=True))
    f1 = sum(wi * 3 * sl * v**2 for wi, sl, v in zip(w, slopes, base, strict=True))
    f2 = sum(wi * 6 * sl**2 * v for wi, sl, v in zip(w, slopes, base, strict=True))
    return s - f * f1 / (f1 * f1 - 0.5 * f * f2)


def _cusp(a: float, b: float) -> tuple[float, float]:
    """Lightness and chroma of the most saturated sRGB colour of the hue."""
    s = _max_saturation(a, b)
    peak = max(_oklab_to_linear_srgb(1, s * a, s * b))
    lightness = (1 / peak) ** (1 / 3)
    return lightness, lightness * s


def _max_chroma(a: float, b: float, lightness: float, cusp: tuple[float, float]) -> float:
    """Where the constant-lightness line leaves the gamut."""
    cusp_l, cusp_c = cusp
    if lightness <= cusp_l:
        return cusp_c * lightness / cusp_l
    t = cusp_c * (lightness - 1) / (cusp_l - 1)
    slopes = _lms_slopes(a, b)
    lms = [lightness + t * s for s in slopes]
    cubes = [v**3 for v in lms]
    first = [3 * s * v**2 for s, v in zip(slopes, lms, strict=True)]
    second = [6 * s**2 * v for s, v in zip(slopes, lms, strict=True)]
    steps = []
    for row in _TO_RGB:
        f = sum(r * v for r, v in zip(row, cubes, strict=True)) - 1
        f1 = sum(r * v for r, v in zip(row, first, strict=True))
        f2 = sum(r * v for r, v in zip(row, second, strict=True))
        u = f1 / (f1 * f1 - 0.5 * f * f2)
        steps.append(-f * u if u >= 0 else math.inf)
    return t + min(steps)


def _chroma_stops(lightness: float, a: float, b: float) -> tuple[float, float, float]:
    cusp = _cusp(a, b)
    c_max = _max_chroma(a, b, lightness, cusp)
    s_max, t_max = cusp[1] / cusp[0], cusp[1] / (1 - cusp[0])
    k = c_max / min(lightness * s_max, (1 - lightness) * t_max)
    s_mid = 0.11516993 + 1 / (
        7.44778970
        + 4.15901240 * b
        + a
        * (
            -2.19557347
            + 1.75198401 * b
            + a
            * (-2.13704948 - 10.02301043 * b + a * (-4.24894561 + 5.38770819 * b + 4.69891013 * a))
        )
    )
    t_mid = 0.11239642 + 1 / (
        1.61320320
        - 0.68124379 * b
        + a
        * (
            0.40370612
            + 0.90148123 * b
            + a
            * (-0.27087943 + 0.61223990 * b + a * (0.00299215 - 0.45399568 * b - 0.14661872 * a))
        )
    )
    c_a, c_b = lightness * s_mid, (1 - lightness) * t_mid
    c_mid = 0.9 * k * math.sqrt(math.sqrt(1 / (1 / c_a**4 + 1 / c_b**4)))
    c_a, c_b = lightness * 0.4, (1 - lightness) * 0.8
    c_0 = math.sqrt(1 / (1 / c_a**2 + 1 / c_b**2))
    return c_0, c_mid, c_max


def okhsl_to_hex(hue: float, saturation: float, lightness: float) -> str:
    """OKHSL (hue in degrees, saturation and lightness 0-1) → ``#rrggbb``."""
    if lightness >= 1:
        return "#ffffff"
    if lightness <= 0:
        return "#000000"
    a, b = math.cos(math.radians(hue)), math.sin(math.radians(hue))
    oklab_l = _toe_inv(lightness)
    if saturation <= 0:
        return _encode(_oklab_to_linear_srgb(oklab_l, 0, 0))
    c_0, c_mid, c_max = _chroma_stops(oklab_l, a, b)
    middle = 0.8
    if saturation < middle:
        t = saturation / middle
        k_1 = middle * c_0
        k_2 = 1 - k_1 / c_mid
        chroma = t * k_1 / (1 - k_2 * t)
    else:
        t = (saturation - middle) / (1 - middle)
        k_1 = (1 - middle) * c_mid * c_mid / (middle * middle * c_0)
        k_2 = 1 - k_1 / (c_max - c_mid)
        chroma = c_mid + t * k_1 / (1 - k_2 * t)
    return _encode(_oklab_to_linear_srgb(oklab_l, chroma * a, chroma * b))


def parse_color(value: str) -> str:
    """A hex, ``oklch()`` or ``okhsl()`` colour as ``#rrggbb``.

    Raises:
        ValueError: Not one of those forms, or a component out of range.
    """
    hexed = _HEX.match(value)
    if hexed:
        digits = hexed[1].lower()
        return "#" + ("".join(d * 2 for d in digits) if len(digits) == 3 else digits)
    oklch, okhsl = _function_patterns()
    lch = oklch.match(value)
    if lch:
        lightness = float(lch[1]) / (100 if lch[2] else 1)
        chroma = float(lch[3])
        if not 0 <= lightness <= 1 or chroma < 0:
            raise ValueError(f"oklch lightness must be 0-100% and chroma not negative: {value}")
        return oklch_to_hex(lightness, chroma, float(lch[4]) % 360)
    hsl = okhsl.match(value)
    if hsl:
        saturation = float(hsl[2]) / (100 if hsl[3] else 1)
        lightness = float(hsl[4]) / (100 if hsl[5] else 1)
        if not (0 <= saturation <= 1 and 0 <= lightness <= 1):
            raise ValueError(f"okhsl saturation and lightness must be 0-100%: {value}")
        return okhsl_to_hex(float(hsl[1]) % 360, saturation, lightness)
    if value.startswith("#"):
        raise ValueError(f"invalid hex colour {value!r} (expected #rgb or #rrggbb)")
    raise ValueError(f"invalid colour {value!r}")
