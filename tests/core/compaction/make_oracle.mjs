// Runs pi's own compaction functions on generated sessions (tests/core/compaction/sessions.py)
// and prints their answers as JSON: node make_oracle.mjs <pi node_modules dir> <plan.json>
import { pathToFileURL } from "node:url";
import { readFileSync } from "node:fs";
import { join } from "node:path";

const [nodeModules, planFile] = process.argv.slice(2);
const pi = await import(pathToFileURL(join(nodeModules, "@mariozechner/pi-coding-agent/dist/index.js")).href);
const sm_mod = await import(pathToFileURL(join(nodeModules, "@mariozechner/pi-coding-agent/dist/core/session-manager.js")).href);
const comp = await import(pathToFileURL(join(nodeModules, "@mariozechner/pi-coding-agent/dist/core/compaction/index.js")).href);
const utils = await import(pathToFileURL(join(nodeModules, "@mariozechner/pi-coding-agent/dist/core/compaction/utils.js")).href);
const { convertToLlm } = pi;

const plan = JSON.parse(readFileSync(planFile, "utf8"));
const out = [];
for (const item of plan) {
	const sm = sm_mod.SessionManager.open(item.file);
	const result = { file: item.file, estimates: {}, compactions: [], navigations: [] };
	for (const e of sm.getEntries()) if (e.type === "message") result.estimates[e.id] = comp.estimateTokens(e.message);
	for (const c of item.compactions) {
		const settings = { enabled: true, reserveTokens: 16384, keepRecentTokens: c.keep };
		const prep = comp.prepareCompaction(sm.getBranch(c.leaf), settings);
		if (!prep) { result.compactions.push({ leaf: c.leaf, keep: c.keep, prepared: false }); continue; }
		const lists = utils.computeFileLists(prep.fileOps);
		result.compactions.push({
			leaf: c.leaf, keep: c.keep, prepared: true,
			firstKeptEntryId: prep.firstKeptEntryId, isSplitTurn: prep.isSplitTurn, tokensBefore: prep.tokensBefore,
			messagesToSummarizeCount: prep.messagesToSummarize.length, turnPrefixMessagesCount: prep.turnPrefixMessages.length,
			previousSummary: prep.previousSummary ?? null,
			fileOps: { read: [...prep.fileOps.read], written: [...prep.fileOps.written], edited: [...prep.fileOps.edited] },
			readFiles: lists.readFiles, modifiedFiles: lists.modifiedFiles,
			fileListsFormatted: utils.formatFileOperations(lists.readFiles, lists.modifiedFiles),
			serialized: utils.serializeConversation(convertToLlm(prep.messagesToSummarize)),
			turnPrefixSerialized: utils.serializeConversation(convertToLlm(prep.turnPrefixMessages)),
		});
	}
	for (const n of item.navigations) {
		sm.branch(n.from);
		const { entries, commonAncestorId } = comp.collectEntriesForBranchSummary(sm, n.from, n.to);
		const prep = comp.prepareBranchEntries(entries, 128000 - 16384);
		const lists = utils.computeFileLists(prep.fileOps);
		const target = sm.getEntry(n.to);
		let newLeafId = n.to, editorText = null;
		const text = (c) => typeof c === "string" ? c : c.filter((b) => b.type === "text").map((b) => b.text).join("");
		if (target.type === "message" && target.message.role === "user") { newLeafId = target.parentId; editorText = text(target.message.content); }
		else if (target.type === "custom_message") { newLeafId = target.parentId; editorText = text(target.content); }
		result.navigations.push({
			from: n.from, to: n.to, commonAncestorId, entryIds: entries.map((e) => e.id),
			preparedMessagesCount: prep.messages.length, totalTokens: prep.totalTokens,
			readFiles: lists.readFiles, modifiedFiles: lists.modifiedFiles,
			serialized: utils.serializeConversation(convertToLlm(prep.messages)),
			newLeafId, editorText,
		});
	}
	out.push(result);
}
process.stdout.write(JSON.stringify(out));
