// pi's own session code on a file, for bench/session_load.py (needs PI_ENTRY: pi's library
// entry, dist/index.js, as bench/pi_cli.py's pi_library finds it; or PI_DIR for pi 0.73).
//   node pi_session_load.mjs inprocess FILE RUNS  -> JSON medians {open, build, convert, total}
//   node pi_session_load.mjs print FILE           -> the context as JSON on stdout
import { pathToFileURL } from "node:url";
import { join } from "node:path";

const entry = process.env.PI_ENTRY || join(process.env.PI_DIR, "node_modules/@mariozechner/pi-coding-agent/dist/index.js");
const { SessionManager, convertToLlm } = await import(pathToFileURL(entry).href);
const [mode, file, runsText] = process.argv.slice(2);

const median = (values) => {
	const sorted = [...values].sort((a, b) => a - b);
	return sorted[Math.floor(sorted.length / 2)];
};

if (mode === "print") {
	const session = SessionManager.open(file);
	const context = session.buildSessionContext();
	const out = {
		leafId: session.getLeafId(),
		model: context.model,
		thinkingLevel: context.thinkingLevel,
		agentMessages: context.messages,
		llmMessages: convertToLlm(context.messages),
	};
	process.stdout.write(`${JSON.stringify(out)}\n`);
} else {
	const rows = [];
	for (let i = 0; i < Number(runsText || 5); i++) {
		const c0 = process.cpuUsage();
		const t0 = performance.now();
		const session = SessionManager.open(file);
		const t1 = performance.now();
		const context = session.buildSessionContext();
		const t2 = performance.now();
		convertToLlm(context.messages);
		const t3 = performance.now();
		const cpu = process.cpuUsage(c0);
		rows.push({
			open: (t1 - t0) / 1000,
			build: (t2 - t1) / 1000,
			convert: (t3 - t2) / 1000,
			total: (t3 - t0) / 1000,
			cpu: (cpu.user + cpu.system) / 1e6,
		});
	}
	const result = {};
	for (const key of ["open", "build", "convert", "total", "cpu"]) result[key] = median(rows.map((r) => r[key]));
	process.stdout.write(`${JSON.stringify(result)}\n`);
}
