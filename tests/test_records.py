"""Records behave as the frozen, slotted dataclasses they replace (pitui/records.py)."""

from __future__ import annotations

import copy
import dataclasses
import pickle

import pytest

from pitui.records import Record
from pitui.ui.view import state
from pitui.ui.view.evolve import replace


class Notice(Record):
    """A record with defaults."""

    id: str
    text: str
    level: str = "info"
    """A field docstring, as the view model writes them."""
    lasting: bool = False


@dataclasses.dataclass(frozen=True, slots=True)
class NoticeDataclass:
    id: str
    text: str
    level: str = "info"
    lasting: bool = False


def test_a_record_is_a_frozen_dataclass_to_its_users() -> None:
    item = Notice("n1", "hi", level="warning")
    twin = NoticeDataclass("n1", "hi", level="warning")
    assert repr(item) == repr(twin).replace("NoticeDataclass", "Notice")
    assert item == Notice("n1", "hi", "warning", False)
    assert item != Notice("n1", "hi") and item != twin
    assert hash(item) == hash(Notice("n1", "hi", "warning"))
    assert dataclasses.is_dataclass(item)
    assert [f.name for f in dataclasses.fields(item)] == ["id", "text", "level", "lasting"]
    assert dataclasses.asdict(item) == dataclasses.asdict(twin)
    assert dataclasses.replace(item, text="x") == Notice("n1", "x", "warning")
    assert replace(item, lasting=True).lasting
    assert pickle.loads(pickle.dumps(item)) == item
    assert copy.copy(item) == item == copy.deepcopy(item)
    assert not hasattr(item, "__dict__")
    match item:
        case Notice(ident, text):
            assert (ident, text) == ("n1", "hi")
    with pytest.raises(dataclasses.FrozenInstanceError):
        item.text = "changed"  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        del item.text


@pytest.mark.parametrize(
    ("args", "kwargs"),
    [(("a",), {}), (("a", "b"), {"bogus": 1}), (("a", "b"), {"text": "c"}), (tuple("abcde"), {})],
)
def test_wrong_arguments_are_a_type_error(args: tuple[str, ...], kwargs: dict[str, str]) -> None:
    with pytest.raises(TypeError):
        Notice(*args, **kwargs)  # type: ignore[arg-type]


def test_a_record_declares_its_fields_as_a_dataclass_must() -> None:
    with pytest.raises(TypeError, match="follows"):

        class Bad(Record):
            first: int = 0
            second: int  # type: ignore[misc]

    with pytest.raises(TypeError, match="a default or a factory"):

        class Hidden(Record):
            items: list[int] = dataclasses.field(default_factory=list, repr=False)


def test_a_default_factory_gives_each_record_its_own_value() -> None:
    class Bag(Record):
        name: str
        items: list[int] = dataclasses.field(default_factory=list)

    first, second = Bag("a"), Bag("b")
    assert first.items == [] and first.items is not second.items
    assert Bag("c", [1]).items == [1]
    assert dataclasses.replace(first, name="z").items is first.items


def test_the_view_models_items_are_records() -> None:
    """The no-key first frame creates them (its notice): no generated dataclass code."""
    items = [
        value
        for value in vars(state).values()
        if isinstance(value, type) and value.__module__ == state.__name__
    ]
    assert len(items) >= 12
    assert all(issubclass(cls, Record) for cls in items)


def test_one_field_records_compare_and_hash_by_it() -> None:
    class Label(Record):
        text: str

    assert Label("a") == Label("a") != Label("b")
    assert hash(Label("a")) == hash(("a",))
    assert repr(Label("a")).endswith("<locals>.Label(text='a')")  # the qualname, as a dataclass
