/**
 * Every sentence the model or a human reviewer reads, in one place. Each builder returns one clean
 * sentence (or a short paragraph for prompt sections): what was refused, which rule refused it, and
 * what would be allowed. test/messages.test.ts pins the exact text.
 *
 * Builders take plain data (tool names, rule ids, numbers) so any module can use them without
 * depending on the guard, the engine or the policy.
 */

/** "1500 ms", "30 s", "5 min", "2 h" — readable in a system prompt. */
export function formatDuration(ms: number): string {
  if (ms > 0 && ms % 3_600_000 === 0) return `${ms / 3_600_000} h`;
  if (ms > 0 && ms % 60_000 === 0) return `${ms / 60_000} min`;
  if (ms > 0 && ms % 1_000 === 0) return `${ms / 1_000} s`;
  return `${Math.ceil(ms)} ms`;
}

/** "1 time", "3 times". */
export function times(n: number): string {
  return `${n} time${n === 1 ? "" : "s"}`;
}

/** "1 call", "3 calls". */
export function calls(n: number): string {
  return `${n} call${n === 1 ? "" : "s"}`;
}

function plainList(items: readonly string[], none = "none"): string {
  return items.length > 0 ? items.join(", ") : none;
}

function codeList(tools: readonly string[]): string {
  return tools.map((t) => `\`${t}\``).join(", ");
}

const JSON_TEXT = "a string holding JSON text";

function jsonParses(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function sentence(text: string): string {
  const trimmed = text.trim();
  return /[.!?]$/.test(trimmed) ? trimmed : `${trimmed}.`;
}

/** "api" or "api (read)". */
export function callLabel(tool: string, operation?: string): string {
  return operation === undefined ? tool : `${tool} (${operation})`;
}

/** "by rule MaxCalls:api#0" for default ids (they already name the type), else "by MaxCalls rule limits". */
export function ruleRef(ruleId: string, ruleType?: string): string {
  if (ruleType === undefined || ruleId.startsWith(`${ruleType}:`)) return `rule ${ruleId}`;
  return `${ruleType} rule ${ruleId}`;
}

// ---------------------------------------------------------------------------------------------
// Rule violations: the reason clause (no tool prefix, no trailing period) per rule type.
// ---------------------------------------------------------------------------------------------

export type RuleScopeWord = "run" | "thread";

function scopeWord(scope: RuleScopeWord): string {
  return scope === "run" ? "per run" : "per thread";
}

export const ruleReasons = {
  maxCalls(tool: string, max: number, current: number, scope: RuleScopeWord): string {
    if (max === 0) return `call limit reached: ${tool} is disabled (limit 0 ${scopeWord(scope)})`;
    return `call limit reached: ${tool} may be called at most ${times(max)} ${scopeWord(scope)} and was called ${times(current)}`;
  },
  totalCalls(max: number, current: number, scope: RuleScopeWord): string {
    return `call limit reached: at most ${calls(max)} to all tools together ${scopeWord(scope)}, and ${current} ${current === 1 ? "was" : "were"} made`;
  },
  cooldown(tool: string, remainingMs: number, durationMs: number): string {
    return `${tool} is cooling down: ${formatDuration(remainingMs)} left of the ${formatDuration(durationMs)} needed between calls`;
  },
  mustFollow(tool: string, required: readonly string[], missing: readonly string[], scope: RuleScopeWord = "run"): string {
    const verb = missing.length === 1 ? "has" : "have";
    const where = scope === "thread" ? " in this thread" : "";
    return `${tool} may only run after ${plainList(required)} succeeded${where}, and ${plainList(missing)} ${verb} not`;
  },
  mustPrecede(tool: string, first: string, scope: RuleScopeWord = "run"): string {
    const where = scope === "thread" ? " in this thread" : "";
    return `${first} must succeed${where} before ${tool} may run, and it has not`;
  },
  exclusiveGroup(group: readonly string[], used: readonly string[], scope: RuleScopeWord): string {
    return `only one of ${plainList(group)} may be used ${scopeWord(scope)}, and ${plainList(used)} already was`;
  },
  /** Every InitialCall tool must run first; `pending` have not yet. */
  initialCall(pending: readonly string[]): string {
    return `${plainList(pending)} must be called first, before any other tool`;
  },
  /** The first call must be one of `choices` (InitialCall with alternatives, Letta's several init rules). */
  initialChoice(choices: readonly string[]): string {
    return `the first call must be one of ${plainList(choices)}`;
  },
  operationMissing(tool: string, allowed: readonly string[]): string {
    return `${tool} must be called with an operation; allowed operations: ${plainList(allowed)}`;
  },
  operationNotAllowed(tool: string, operation: string, allowed: readonly string[]): string {
    return `operation ${operation} of ${tool} is not allowed; allowed operations: ${plainList(allowed)}`;
  },
  runEnded(terminalTool: string | undefined, pendingExit: readonly string[]): string {
    const why = terminalTool === undefined ? "a terminal tool succeeded" : `${terminalTool} succeeded`;
    return `the run has ended (${why}); only pending exit tools may run: ${plainList(pendingExit)}`;
  },
  childOnly(parent: string, children: readonly string[]): string {
    return `after ${parent} only ${plainList(children)} may be called next`;
  },
  parentOnly(child: string, parent: string): string {
    return `${child} may be called only right after ${parent}, and ${parent} was not the last call`;
  },
  conditionalNext(parent: string, next: readonly string[], output: string | undefined): string {
    const seen = output === undefined ? "" : ` (its output matched ${JSON.stringify(output)})`;
    return `after ${parent}${seen} only ${plainList(next)} may be called next`;
  },
} as const;

/**
 * The one sentence the model reads when a tool rule refuses a call:
 * "Refused api by rule MaxCalls:api#0: call limit reached: …. Allowed now: search."
 */
/** The "Allowed now" part of a rule refusal: the tools the model may call now. */
export function allowedNowText(allowedNow: readonly string[]): string {
  return allowedNow.length > 0 ? allowedNow.join("; ") : "no tool";
}

export function ruleRefusal(input: {
  tool: string;
  operation?: string | undefined;
  ruleId: string;
  ruleType: string;
  reason: string;
  allowedNow: readonly string[];
  /** `allowedNowText(allowedNow)`, when the caller keeps it. */
  allowedNowText?: string | undefined;
}): string {
  const allowed = input.allowedNowText ?? allowedNowText(input.allowedNow);
  return `Refused ${callLabel(input.tool, input.operation)} by ${ruleRef(input.ruleId, input.ruleType)}: ${input.reason}. Allowed now: ${allowed}.`;
}

// ---------------------------------------------------------------------------------------------
// Refusals outside the tool rules (policy, killswitch, schema, unknown tool, human).
// ---------------------------------------------------------------------------------------------

export const refusals = {
  /** A permission rule, the killswitch or a risk default denied the call. */
  denied(tool: string, ruleId: string, reason: string): string {
    const first = reason.charCodeAt(0);
    const last = reason.charCodeAt(reason.length - 1);
    if (first > 0x20 && first < 0x7f && last > 0x20 && last < 0x7f && last !== 0x2e) {
      // Starts and ends with printable ASCII other than a space and "." (the common case): trimming and
      // stripping change nothing, and the text ends with the reason's last character.
      const text = `Refused ${tool} by rule ${ruleId}: ${reason}`;
      return last === 0x21 || last === 0x3f ? text : `${text}.`;
    }
    return sentence(`Refused ${tool} by rule ${ruleId}: ${reason.trim().replace(/[.\s]+$/, "")}`);
  },
  unknownTool(tool: string, available: readonly string[]): string {
    return `Refused ${JSON.stringify(tool)} by rule unknown-tool: there is no tool with that name. Available tools: ${plainList(available, "none")}.`;
  },
  invalidArguments(tool: string, detail: string): string {
    return `Refused ${tool} by rule schema: invalid arguments (${detail}). Fix the arguments and call again.`;
  },
  /** The audit reason of an invalid-arguments refusal. */
  invalidArgumentsReason(detail: string): string {
    return `invalid arguments: ${detail}`;
  },
  /** The call's arguments are not a JSON object (`received` from argumentsKind). */
  argumentsNotObject(tool: string, received: string): string {
    const hint = received === JSON_TEXT ? " (the object itself, not JSON text in a string)" : "";
    return `Refused ${tool} by rule schema: the arguments must be a JSON object of named fields, and ${received} was sent. Call again with the arguments as an object${hint}, for example {"field": "value"}.`;
  },
  /** The audit reason of a refusal for arguments that are not an object. */
  argumentsNotObjectReason(received: string): string {
    return `invalid arguments: not a JSON object (${received})`;
  },
  /** What was sent in place of an arguments object, as the refusal names it. */
  argumentsKind(value: unknown): string {
    if (value === undefined) return "no arguments";
    if (value === null) return "null";
    if (Array.isArray(value)) return "an array";
    if (typeof value === "string") {
      const text = value.trim();
      if (text === "") return "an empty string";
      return /^[{[]/.test(text) && jsonParses(text) ? JSON_TEXT : "a string";
    }
    if (typeof value === "number" || typeof value === "bigint") return "a number";
    if (typeof value === "boolean") return "a boolean";
    return `a value of type ${typeof value}`;
  },
  humanRejected(tool: string, note: string | undefined): string {
    const why = note === undefined || note.trim() === "" ? "" : `: ${note.trim().replace(/[.\s]+$/, "")}`;
    return `Refused ${tool} by a human reviewer${why}. Do not retry this call unchanged.`;
  },
  /** The reviewer's edit was reviewed again and refused; `refusal` is that review's own sentence. */
  editRefused(refusal: string): string {
    return `The reviewer's edit of this call was checked again and refused. ${refusal}`;
  },
  /** Another call of a model turn in which a call crossed a limit with exitBehavior "error": the run stopped with the error, nothing of the turn ran. */
  stoppedAtLimit(tool: string, ruleId: string): string {
    return `Refused ${tool} by rule ${ruleId}: the run stopped with an error at this call limit (exitBehavior error) before ${tool} ran.`;
  },
  /** A call reached the tools node without having been reviewed in its model turn and it would ask. */
  unreviewedAsk(tool: string, ruleId: string, reason: string): string {
    return `Refused ${tool} by rule ${ruleId}: it needs human approval (${reason}), but it was not part of the reviewed model turn, so no one could approve it.`;
  },
  /** Arguments nested deeper or longer than the guard inspects (`what` from oversizedArgumentsReason). */
  oversizedArguments(tool: string, what: string): string {
    return `Refused ${tool} by rule oversized-arguments: ${what}. Send smaller, flatter arguments (for large content, write it in several calls).`;
  },
  /** The audit reason of an oversized-arguments refusal. */
  oversizedArgumentsReason(kind: "depth" | "size", limit: number): string {
    return kind === "depth" ? `the arguments are nested deeper than ${limit} levels` : `the arguments are longer than ${limit} characters`;
  },
  /** The provider could not parse the call's arguments (LangChain's invalid_tool_calls); `error` is its parser's message. */
  unparsedArguments(tool: string, error: string): string {
    return `Refused ${tool} by rule schema: its arguments could not be read as JSON (${error.trim().replace(/[.\s]+$/, "")}), so it did not run. Call it again with the arguments as one complete JSON object.`;
  },
  /** The audit reason of an unparsed-arguments refusal. */
  unparsedArgumentsReason(error: string): string {
    return `invalid arguments: not valid JSON (${error.trim()})`;
  },
  /** A refusal with no sentence of its own (fallback). */
  generic(tool: string, ruleId: string, reason: string): string {
    return sentence(`Refused ${tool} by rule ${ruleId}: ${reason}`);
  },
} as const;

/** The reason clause when no permission rule matched and the tool's risk decided. */
export function riskDefaultReason(tool: string, risk: string, mode: "allow" | "deny" | "ask"): string {
  const verb = mode === "allow" ? "allowed" : mode === "deny" ? "denied" : "asked about";
  return `no permission rule matched ${tool}; ${risk} risk tools are ${verb} by default`;
}

/** The reason clause when no permission rule matched and the tool declares no risk (seed 003: ask). */
export function undeclaredRiskReason(tool: string): string {
  return `no permission rule matched ${tool} and nobody declared its risk, so by default it needs approval (declare the tool's risk, or set tools.${tool}.risk or defaultRisk in the policy or the guard's options, to change this default)`;
}

/** The reason clause when an argument holds a C0/C1 control character (`where` is `field: U+0000`). */
export function controlCharacterReason(where: string): string {
  return `an argument holds a control character (${where}), which no rule may read past`;
}

/** The reason clause when a deny or ask rule cannot tell whether it applies (unparseable shell, unreadable path or URL). */
export function cannotTellReason(mode: string, description: string, detail?: string): string {
  return `the ${mode} rule cannot tell whether it applies (${description}): ${detail ?? "the argument cannot be read reliably"}`;
}

/**
 * Why a rule on a command that xargs or parallel (`wrapper`) runs cannot be told: the wrapper adds
 * words it reads from its input (or puts them where its replace string stands).
 */
export function inputWordsReason(wrapper: string): string {
  return `${wrapper} adds words it reads from its input to the command it runs, which the guard cannot know`;
}

/**
 * Why a deny or ask pattern cannot tell a command whose words the shell still replaces when it runs
 * (`git p${x}ush`, `git $x push`, `git pu?h`): what they become may make the pattern match.
 */
export function wildWordsReason(pattern: string, words: readonly string[]): string {
  const shown = words.slice(0, 3).join(", ") + (words.length > 3 ? ", …" : "");
  return `the shell replaces ${shown} when the command runs (an expansion or a file name pattern), and what it becomes may match ${JSON.stringify(pattern)}`;
}

/**
 * Why a deny or ask pattern cannot tell a command whose words start at a place only known when it
 * runs (`cat ~/x`, `dd if=~/x`, `cat /proc/self/cwd/x`, `cat /dev/fd/3`): where they lead may make
 * the pattern match.
 */
export function unplacedWordsReason(pattern: string, words: readonly string[]): string {
  const shown = words.slice(0, 3).join(", ") + (words.length > 3 ? ", …" : "");
  return `${shown} ${words.length === 1 ? "starts" : "start"} at a place only known when the command runs (a home directory, a working directory or an open descriptor), and where it leads may match ${JSON.stringify(pattern)}`;
}

/**
 * Why a deny or ask pattern cannot tell a relative word whose place depends on a directory the guard does not know: a word
 * that climbs out of the directory the line starts in (`../../etc/shadow`: from a start deep enough, any place ending in
 * /etc/shadow), or a relative word after a `cd` to a place only known when the line runs (`cd -`, `popd`, `cd ~/..`,
 * `cd ../../srv`; the guard shows such a word placed there: `~-/k`, `../../srv/k`).
 */
export function unknownDirectoryReason(pattern: string, words: readonly { readonly word: string; readonly end: string }[]): string {
  const shown = words.slice(0, 3).map(({ word, end }) => `${word} (${end === "" ? "any directory" : `any place ending in ${end}`})`).join(", ") + (words.length > 3 ? ", …" : "");
  const one = words.length === 1;
  return `${shown} ${one ? "is" : "are"} relative to a directory the guard does not know (the one the line starts in, climbed out of with .., or one a cd moved to that only the run tells), and such a place may match ${JSON.stringify(pattern)}`;
}

/**
 * Why a deny or ask pattern cannot tell a line that makes a link, a copy or a move (`ln -s $T x`, `ln -s FILE $N`,
 * `ln -t "$D" FILE`, `cp $X y`) whose name or target is only known when it runs: a word that names it reads its target.
 */
export function lineLinkReason(pattern: string, command: string, unknown: "name" | "target"): string {
  const what = unknown === "name" ? "which name it gets (an expansion, a directory the guard cannot place, an option it does not know)" : "where it leads (an expansion, or a place relative to a directory the guard cannot place)";
  return `\`${command}\` gives a file another name in this line (a link, a copy or a move), and the guard cannot tell ${what}: a word of the line that names it may read a file ${JSON.stringify(pattern)} names`;
}

/** Why a deny or ask pattern that a URL carried in a fetched URL's query meets cannot tell: the server may redirect there. */
export function carriedUrlReason(word: string): string {
  return `${word} carries another URL in its query, where its server may redirect the client`;
}

/**
 * Why a deny or ask pattern cannot tell a word that names a file with more than one name (a hard link, as pnpm's
 * stores make them) when the directory the pattern names is too large or unreadable to search for its other names.
 */
export function hardLinkReason(pattern: string, word: string, directory: string): string {
  return `${word} is a file with more than one name (a hard link), and the guard cannot search all of ${directory} (too many entries, or unreadable) for its other names, so it may be a file ${JSON.stringify(pattern)} names`;
}

/**
 * Why a deny or ask pattern that names options cannot tell: the command sets the same options, with the same operands, as
 * its program may read them (git push's `HEAD`, or a remote and branch left out, which it takes from the checkout and the
 * configuration; a program whose options the guard has no table for, where a letter may be an option's value).
 */
export function optionSpellingsReason(pattern: string): string {
  return `the command's options and operands, as its program reads them (some only when it runs: a remote or branch it takes from the configuration or the checkout; for a program whose options the guard has no table of, a letter may be another option's value), may be the ones ${JSON.stringify(pattern)} names`;
}

/**
 * Why a deny or ask pattern that names an option cannot tell: the command gives `spelling`, which its program may read as
 * the pattern's `option`. `how`: "untabled", the guard has no table of the program's options (a long option may be a short
 * one's long spelling, or abbreviate a longer one, and a short one may be a long one's short spelling); "sometimes", the
 * program's table says the spelling sets the option only in some cases it decides when it runs (`--force-with-lease`);
 * "abbreviation", the table holds only some of the program's long options and the spelling may abbreviate the option (npm's `--glob`).
 */
export function optionSpellingReason(pattern: string, program: string, spelling: string, option: string, how: "untabled" | "sometimes" | "abbreviation"): string {
  if (how === "untabled") return `the guard has no table of ${program}'s options, so it cannot tell whether ${spelling} is another spelling of ${option} (a long option may be a short one's long name or abbreviate a longer one, a short one may stand for a long one), which ${JSON.stringify(pattern)} names`;
  if (how === "abbreviation") return `${program} may read ${spelling} as an abbreviation of ${option} (the guard knows only some of its long options, so it cannot tell whether the abbreviation is unique), which ${JSON.stringify(pattern)} names`;
  return `${program} reads ${spelling} as ${option} only in some cases it decides when it runs, and ${JSON.stringify(pattern)} names ${option}`;
}

/** Why a deny or ask `pattern` cannot tell: the command connects to places the guard cannot read (`why`), and one of them may make the pattern match. */
export function unreadPlacesReason(pattern: string, why: string): string {
  return `${why}, and a place it connects to may match ${JSON.stringify(pattern)}`;
}

/** Why nothing can be told of a command whose program `wrapper` reads from its input (`xargs -I{} {} x`). */
export function inputProgramReason(wrapper: string): string {
  return `${wrapper} reads the name of the program it runs from its input, which the guard cannot know`;
}

/** Why nothing can be told of `program` once `wrapper` adds words from its input: they may be options that make it run another command. */
export function inputOptionsReason(wrapper: string, program: string): string {
  return `${wrapper} adds words it reads from its input to ${program}, whose arguments may make it run another command, which the guard cannot know`;
}

/** How `policy explain` shows a command that runs with words read from the input (`"git" + words xargs reads from its input`). */
export function inputWordsShown(known: string, wrapper: string): string {
  return `${known} + words ${wrapper} reads from its input`;
}

/** Why a rule on the command `find … -exec` runs cannot be told: a file name pattern among its starting points (`find * -exec git {} \;`) makes the paths it puts where `{}` stands names the guard cannot know. */
export function foundPathsReason(): string {
  return "find puts the paths it finds where {} stands, and a file name pattern among its starting points makes them names the guard cannot know";
}

/** Why no allow covers a redirection of descriptor 10 or above: bash redirects it, sh (dash) reads the number as a word of the command. */
export function dashDescriptorReason(descriptor: string): string {
  return `the command redirects descriptor ${descriptor}, which sh (dash) reads as a word ${descriptor} of the command`;
}

/**
 * Why a deny cannot tell a line that runs a file (`run`: "s.sh as a script", "run.py with python3", "Makefile's recipes
 * with make") after a program wrote files whose names the line does not give (`writer`: "tar extracts an archive",
 * "patch writes the files its patch names"): the file may be one of them, and what it holds is only known when the line runs.
 */
export function unlistedScriptReason(run: string, writer: string): string {
  return `the line runs ${run} after ${writer}, which may have written it, and what it holds is only known when the line runs`;
}

/**
 * Why a deny cannot tell a line that writes a file (`file`) and then runs a program (`program`: "git commit", "pytest")
 * that loads code from files it finds by convention (`what`: "the repository's hooks and the commands its configuration
 * names"): the written file may be one of them, and what it holds is only known when the line runs.
 */
export function loadedCodeReason(file: string, program: string, what: string): string {
  return `the line writes ${file} and then runs ${program}, which may run ${what}, and what ${file} holds is only known when the line runs`;
}

/** loadedCodeReason for files a program wrote without the line naming them (`writer`: "tar extracts an archive"). */
export function unlistedLoadedCodeReason(program: string, what: string, writer: string): string {
  return `the line runs ${program}, which may run ${what}, after ${writer}, which may have written them, and what they hold is only known when the line runs`;
}

/** Why a deny cannot tell a line whose name reference (`declare -n r=$1`) names a variable only known when it runs: setting r may set any variable (GIT_SSH_COMMAND, BASH_ENV, PATH). */
export function nameReferenceReason(builtin: string): string {
  return `${builtin} -n makes a name refer to a variable only known when the line runs, so setting it may set any variable`;
}

/** How `policy explain` shows a command find runs with the paths it finds (`"git" + paths find finds`). */
export function foundPathsShown(known: string): string {
  return `${known} + paths find finds`;
}

/** The reason clause when an allow rule's command pattern matched the words but not a construct of the line (`construct` names it). */
export function uncoveredReason(construct: string, ruleId: string, description: string): string {
  return `${construct}, which the allow rule ${ruleId} (${description}) does not cover`;
}

// ---------------------------------------------------------------------------------------------
// Approval: what the reviewer reads.
// ---------------------------------------------------------------------------------------------

/** The description of one pending call for the reviewer: the tool, the rule that asks and why, once each. */
export function approvalDescription(input: { tool: string; risk: string; ruleId: string; reason: string }): string {
  const { tool, risk, ruleId, reason } = input;
  const text = reason.trim().replace(/[.\s]+$/, "");
  // The risk once: not when the rule is the risk default, nor when the reason already says it.
  const riskNote = ruleId.startsWith("risk:") || text.includes(`${risk} risk`) ? "" : ` (${risk} risk)`;
  // A tool rule's audit id is `rule:<id>`; the reviewer reads the rule's own id ("by rule MaxCalls:api#0").
  return sentence(`${tool} needs approval by rule ${ruleId.replace(/^rule:/, "")}: ${text}${riskNote}`);
}

/** What a reason becomes once a human approved it (audit). */
export const approvalNotes = {
  approved(reason: string): string {
    return `${reason} (approved by a human)`;
  },
  editedAndApproved(reason: string): string {
    return `${reason} (edited and approved by a human)`;
  },
  autoApproved(reason: string): string {
    return `${reason} (auto-approved: bypass mode)`;
  },
} as const;

// ---------------------------------------------------------------------------------------------
// Reminders and prompt sections.
// ---------------------------------------------------------------------------------------------

export const reminders = {
  /** The model tried to finish with RequiredForExit tools pending. */
  exitPending(pending: readonly string[]): string {
    return `Before you finish, you must call: ${plainList(pending)} (rule RequiredForExit).`;
  },
  /** The last reminder before the call is forced. */
  exitForced(tool: string): string {
    return `You must call ${tool} now (rule RequiredForExit).`;
  },
  /** Periodic tools due now (system prompt). */
  periodicDue(due: readonly string[]): string {
    return `Periodic tools due now: ${plainList(due)}. Call them as part of this step.`;
  },
  /** The reminders ran out: the due periodic tool is called now. */
  periodicForced(tool: string): string {
    return `${tool} is overdue (rule Periodic) and is called now.`;
  },
} as const;

/** The heartbeat argument's description in every tool schema. */
export const HEARTBEAT_DESCRIPTION =
  "Set true to get control back after this call (to call more tools); false ends your turn.";

/** Heading of the tool usage section in the system prompt. */
export function usageSection(lines: readonly string[]): string {
  return lines.length === 0 ? "" : `## Tool usage rules\n\n${lines.map((l) => `- ${l}`).join("\n")}\n`;
}

/** A tool's own usage text in the usage section. */
export function toolUsageLine(tool: string, text: string): string {
  return `\`${tool}\`: ${text.trim()}`;
}

// ---------------------------------------------------------------------------------------------
// Usage sentences: one per rule, for the system prompt (seed 000's `to_usage_description`).
// ---------------------------------------------------------------------------------------------

export const usage = {
  /** Appended to a rule's sentence when the rule asks a human instead of refusing (`onViolation: "ask"`). */
  asksInstead: (sentence: string) => `${sentence}; a call that breaks this rule waits for a human's approval instead of being refused`,
  noHeartbeat: (s: string) => capitalise(`${s} does not need a heartbeat request`),
  continueLoop: (s: string) => capitalise(`after ${s} you continue working: its result comes back to you`),
  terminal: (s: string) => capitalise(`${s} ends your response when it succeeds`),
  terminalIf: (s: string, others: readonly string[]) =>
    capitalise(`${s} ends your response when it succeeds after ${codeList(others)} succeeded`),
  mustFollow: (s: string, others: readonly string[], scope: RuleScopeWord = "run") =>
    capitalise(`${s} can only be used after ${codeList(others)} succeeded ${scope === "run" ? "in this response" : "in this conversation"}`),
  mustPrecede: (s: string, others: readonly string[], scope: RuleScopeWord = "run") =>
    `${codeList(others)} can only be used after ${s} succeeded ${scope === "run" ? "in this response" : "in this conversation"}`,
  exclusiveGroup: (members: readonly string[], scope: RuleScopeWord = "run") =>
    `Use only one of ${codeList(members)} ${scope === "run" ? "per response" : "in this conversation"}`,
  initialCall: (tools: readonly string[]) =>
    tools.length === 1 ? `Call \`${tools[0]}\` first, before any other tool` : `Your first call must be one of ${codeList(tools)}`,
  requiredForExit: (s: string) => capitalise(`${s} must succeed before you finish your response`),
  requiredForExitIf: (s: string, others: readonly string[]) =>
    capitalise(`${s} must succeed before you finish if ${codeList(others)} succeeded`),
  maxCalls: (s: string, max: number, scope: RuleScopeWord) => {
    const per = scope === "run" ? "per response" : "in this conversation";
    if (max === 0) return capitalise(`${s} is disabled`);
    return capitalise(`${s} can be called at most ${times(max)} ${per} (call limit)`);
  },
  totalCalls: (max: number, scope: RuleScopeWord) =>
    `You can make at most ${calls(max)} to all tools together ${scope === "run" ? "per response" : "in this conversation"} (call limit)`,
  cooldown: (s: string, ms: number) => capitalise(`${s} needs at least ${formatDuration(ms)} between calls`),
  periodic: (s: string, ms: number) => capitalise(`${s} should be called every ${formatDuration(ms)}`),
  allowedOperations: (s: string, ops: readonly string[]) =>
    capitalise(`${s} is limited to these operations: ${ops.join(", ")}`),
  child: (s: string, children: readonly string[]) =>
    capitalise(`after ${s}, call only ${children.length === 1 ? codeList(children) : `one of ${codeList(children)}`} next`),
  parent: (s: string, children: readonly string[]) =>
    capitalise(`${codeList(children)} may be called only right after ${s}, and right after ${s} only ${children.length === 1 ? "it" : "they"}`),
  conditional: (s: string, map: readonly { output: string; tool: string }[], fallback: string | undefined, strict: boolean) => {
    const cases = map.map((m) => `${JSON.stringify(m.output)} → \`${m.tool}\``).join(", ");
    const otherwise = fallback !== undefined ? `; otherwise \`${fallback}\`` : strict ? "; otherwise no tool" : "; otherwise any tool";
    return capitalise(`after ${s}, the next tool depends on its output: ${cases}${otherwise}`);
  },
} as const;

// ---------------------------------------------------------------------------------------------
// Run endings caused by a limit.
// ---------------------------------------------------------------------------------------------

export const limitEndings = {
  /** The AI message that ends a run when a limit with exitBehavior "end" is reached. */
  ended(ruleId: string, reason: string): string {
    return `Stopped: ${reason} (rule ${ruleId}), so this run ends here.`;
  },
  /** The error thrown when a limit with exitBehavior "error" is reached. */
  error(ruleId: string, reason: string): string {
    return `Tool call limit exceeded by rule ${ruleId}: ${reason}.`;
  },
} as const;

// ---------------------------------------------------------------------------------------------
// Validation of rule files: name the field and what it needs.
// ---------------------------------------------------------------------------------------------

export const validation = {
  missingField(where: string, field: string, need: string): string {
    return `${where}: field "${field}" is required (${need})`;
  },
  badField(where: string, field: string, problem: string): string {
    return `${where}: field "${field}" ${problem}`;
  },
  unknownType(where: string, type: string, known: readonly string[]): string {
    return `${where}: unknown rule type ${JSON.stringify(type)}; known types: ${known.join(", ")}`;
  },
  unknownField(where: string, field: string, type: string): string {
    return `${where}: field "${field}" is not part of a ${type} rule`;
  },
} as const;

// LangGraph Platform: auth handler, policy by name, platform store, CLI --url (t13b).
export * from "./deploy.js";

// Memory, files, data sources and messages (t15).
export * from "./memory.js";

// Policy file watcher: applied and rejected files (t15).
export * from "./policy.js";

// Shadow policies and policy replay.
export * from "./shadow.js";

// ---------------------------------------------------------------------------------------------
// Execution outcomes the model reads in a call's ToolMessage.
// ---------------------------------------------------------------------------------------------

/** Why a call was aborted (the clause after "did not run:" / "stopped because"). */
export const abortCauses = {
  run: () => "the run was cancelled",
  sibling: (callId: string, tool: string, error: string) => `sibling call ${callId} (${tool}) in the same batch failed: ${error}`,
  timeout: (ms: number) => `timed out after ${ms} ms`,
} as const;

export const execution = {
  notRegistered: (tool: string) => `Error: tool "${tool}" is not registered with the guard`,
  /** `why` comes from describeAbort ("the run was cancelled", "it timed out after 500 ms", …). */
  didNotRun: (tool: string, why: string) => `Cancelled: ${tool} did not run: ${why}`,
  timedOut: (tool: string, why: string) => `Error: ${tool} ${why}`,
  stopped: (tool: string, why: string) => `Cancelled: ${tool} stopped because ${why}`,
  abandoned: (tool: string, why: string, graceMs: number, timeout: boolean) =>
    `${timeout ? "Error" : "Cancelled"}: ${tool} ${why} and did not stop within ${graceMs} ms of its abort signal; it was abandoned`,
  failed: (tool: string, text: string) => `Error: ${tool} failed: ${text}`,
  /** What a tool threw when it cannot be read as text (an object without a prototype, a throwing toString or message). */
  unreadableError: (type: string) => `it threw ${type} that cannot be read as text`,
  /** The tool returned a LangGraph Command (`parts`: its update keys and goto); `said` is its message's text. */
  /** A tool's Command the guarded agent's own graph cannot apply (it holds only messages; the guard routes). */
  commandInGuardedAgent: (parts: readonly string[]) =>
    `it ran, but returned a LangGraph Command (${parts.join(", ")}) that the guarded agent's own graph cannot apply: its state holds only the messages, and the guard decides its next node. Nothing of the Command was applied. To update or route the graph that contains this agent, return Command({ graph: Command.PARENT, ... }); to update your own state keys, run the tool with GuardedToolNode in your own graph or with guardMiddleware.`,
  /** A tool's Command that updates the guard's own state channels. */
  commandTouchesGuard: (keys: readonly string[]) =>
    `it ran, but returned a LangGraph Command that updates the guard's own state (${keys.join(", ")}). A tool may not change the guard's rule state, so nothing of the Command was applied.`,
  /** A tool's Command the guard cannot read (its update, graph or goto). */
  commandUnreadable: (why: string) => `it ran, but returned a LangGraph Command the guard cannot apply: ${why}. Nothing of the Command was applied.`,
  /** A tool's Command for the graph the call runs in whose messages answer other calls no model message of the update made (`ids`: their tool_call_ids). */
  commandAnswersOthers: (ids: readonly string[]) =>
    `it ran, but returned a LangGraph Command whose messages hold ToolMessages for other calls (${ids.map((id) => JSON.stringify(id)).join(", ")}); a tool answers only its own call, so nothing of the Command was applied.`,
  /** A tool's Command whose messages answer its call more than once. */
  commandAnswersTwice: (count: number) =>
    `it ran, but returned a LangGraph Command whose messages hold ${count} ToolMessages for this call; a call has exactly one answer, so nothing of the Command was applied.`,
  /** A tool's Command the guard cannot record for exactly-once replay: it is not applied, and the call is not run again. */
  commandNotRecorded: (why: string) =>
    `it ran, but returned a LangGraph Command the guard cannot record for exactly-once replay (${why}), so nothing of the Command was applied; the call will not run again. Put only plain JSON data and LangChain messages in a Command's update.`,
  /** A completed call whose recorded Command cannot be read back from the ledger: nothing is applied, and it does not run again. */
  commandRecordUnreadable: () =>
    "it ran, and the LangGraph Command it returned was recorded, but the record cannot be read back, so nothing of the Command was applied; the call will not run again.",
  /** The answer to a call whose Command had no ToolMessage for it (the Command itself was applied). */
  commandWithoutAnswer: (tool: string, parts: readonly string[]) =>
    parts.length > 0 ? `${tool} applied its update (${parts.join(", ")}).` : `${tool} returned an empty update.`,
  /** A call of a turn whose run was aborted, answered when new input arrived: no completion was recorded. */
  unfinished: (tool: string) =>
    `Cancelled: ${tool} did not finish: the run was aborted before its result was recorded, and new input arrived. It will not run again; call it again if it is still needed.`,
  /**
   * A call of a model message after which the run went on to a later model message and ended without
   * running it (LangChain's createAgent ends the run when the same message has its structured-output
   * call), answered when new input arrived.
   */
  endedBeforeRun: (tool: string) =>
    `Cancelled: ${tool} did not run: the run ended before this call was run, and new input arrived. It will not run; call it again if it is still needed.`,
  /**
   * An approved call of the last model message that never reached the tools: another middleware's
   * afterModel hook sent the run back to the model first (LangChain's humanInTheLoopMiddleware does
   * on a reject), answered before the model is called.
   */
  skippedByJump: (tool: string) =>
    `Cancelled: ${tool} did not run: the run went back to the model before this call was run (another middleware sent it there). It will not run; call it again if it is still needed.`,
  /** The same without a ledger: whether it ran cannot be known (its result was not saved where the guard can read it). */
  unknownAfterAbort: (tool: string) =>
    `Cancelled: ${tool} did not report a result: the run was aborted while it ran, and new input arrived. Whether it had any effect is unknown; it will not run again. Check before calling it again.`,
} as const;

/** What a shell command does with a file a file tool's rule covers (fileReachReason). */
export type FileReachVerb = "reads" | "writes" | "reads and writes";

/**
 * Why a shell command is decided by a file tool's deny or ask rule (`Read(.env)`): "`cat .env` reads .env, which the
 * deny rule Read(.env) covers".
 */
export function fileReachReason(command: string, verb: FileReachVerb, file: string, mode: string, rule: string): string {
  return `\`${shownCommand(command)}\` ${verb} ${file}, which the ${mode} rule ${rule} covers`;
}

/**
 * A search tool's call read as the program it runs (`Grep` as ripgrep): what the search does with a file a rule covers,
 * or why the guard cannot tell, as that program's reason says.
 */
export function searchToolReason(tool: string, program: string, inner: string): string {
  return `${tool} searches as ${program} does: ${inner}`;
}

/** A listing tool's call (`Glob`) whose names come from inside a directory a file tool's rule covers. */
export function listingReason(tool: string, directory: string, mode: string, rule: string): string {
  return `${tool} lists the names inside ${directory}, which the ${mode} rule ${rule} covers`;
}

/** A file tool's rule as a rule of the other file tools that read or write files the same way (`Edit(./src/**)` for Write). */
export function fileToolRuleDescription(rule: string, use: "read" | "write"): string {
  return `${rule}, for every tool that ${use === "read" ? "reads" : "writes"} files`;
}

/** A file tool's rule as a rule of the fetch tools, which read a `file:` URL as a file (`Read(.env)` for WebFetch). */
export function fetchFileRuleDescription(rule: string): string {
  return `${rule}, for every tool that fetches URLs (a file: URL is a file)`;
}

/** A fetch tool's `file:` URL that names a file a file tool's rule covers. */
export function urlFileReason(url: string, file: string, mode: string, rule: string): string {
  return `fetching ${JSON.stringify(url.length > 120 ? `${url.slice(0, 117)}...` : url)} reads the file ${file}, which the ${mode} rule ${rule} covers`;
}

/** Why a fetch tool's rule cannot tell which file a `file:` URL names. */
export function urlFileDoubt(url: string, why: string, mode: string, rule: string): string {
  return `fetching ${JSON.stringify(url.length > 120 ? `${url.slice(0, 117)}...` : url)} may read a file the ${mode} rule ${rule} covers: ${why}`;
}

/** A deep agent's file tool whose path a backend in virtual mode reads under its root (`/secrets/k` is ROOT/secrets/k). */
export function virtualPathReason(tool: string, value: string, file: string, mode: string, rule: string): string {
  return `${tool} on a backend in virtual mode reads ${JSON.stringify(value)} as ${file} (under its root, pathBase), which the ${mode} rule ${rule} covers`;
}

/** A deep agent's file tool whose path, read under a root the policy does not know, may be a file a rule covers. */
export function virtualPathDoubt(tool: string, value: string, mode: string, rule: string): string {
  return `${tool} on a backend in virtual mode reads ${JSON.stringify(value)} under its root, which may make it a file the ${mode} rule ${rule} covers (set pathBase to that root)`;
}

/** A listing tool's call that, from above a directory a file tool's rule covers, may name what is inside it. */
export function listingDoubt(tool: string, what: string, mode: string, rule: string): string {
  return `${tool} lists ${what}, which may name files inside a directory the ${mode} rule ${rule} covers`;
}

/** A file tool's rule as a rule of the command tools (`Read(.env)` for Bash). */
export function shellFileRuleDescription(rule: string): string {
  return `${rule}, read in command lines`;
}

/** A shell command that connects to a place a fetch tool's rule covers (`WebFetch(domain:x)` read in Bash's commands). */
export function netReachReason(command: string, place: string, mode: string, rule: string): string {
  return `\`${shownCommand(command)}\` connects to ${place}, which the ${mode} rule ${rule} covers`;
}

/** Why a fetch tool's deny or ask rule cannot tell whether a shell command connects to a place it covers. */
export function netReachDoubt(command: string, why: string, mode: string, rule: string): string {
  return command === "" ? `${why}, so the guard cannot tell whether it connects to a place the ${mode} rule ${rule} covers` : `\`${shownCommand(command)}\` may connect to a place the ${mode} rule ${rule} covers: ${why}`;
}

/** A command tool's rule as a rule of another command tool (`Bash(rm:*)` for Shell or PowerShell). */
export function commandToolRuleDescription(rule: string): string {
  return `${rule}, for every tool that runs commands`;
}

/** A fetch tool's rule as a rule of a command tool (`WebFetch(domain:x)` for Bash). */
export function netRuleDescription(rule: string): string {
  return `${rule}, read in command lines`;
}

/** A fetch tool's rule (`WebFetch(domain:x)`) as a rule of the other fetch tools (the MCP fetch server's `fetch`). */
export function fetchNetRuleDescription(rule: string): string {
  return `${rule}, for every tool that fetches URLs`;
}

/** What keeps the guard from telling whether a shell command reaches a file a file tool's rule covers (fileReachDoubt). */
export type FileReachDoubt = "program" | "into" | "walk" | "walk-write" | "wild" | "unplaced" | "input" | "list" | "code" | "unparsed" | "environment";

/** A shell command's words shown in a reason: at most 80 characters. */
function shownCommand(command: string): string {
  return command.length > 80 ? `${command.slice(0, 77)}...` : command;
}

/**
 * Why a file tool's deny or ask rule cannot tell whether a shell command reaches a file it covers: the program is one
 * the guard does not know, it walks a directory, the shell still replaces the word, the word starts at a place only
 * known when it runs, xargs adds the words, code names the file, or the line cannot be parsed.
 */
export function fileReachDoubt(doubt: FileReachDoubt, command: string, word: string, mode: string, rule: string): string {
  const shown = `\`${shownCommand(command)}\``;
  const covered = `a file the ${mode} rule ${rule} covers`;
  switch (doubt) {
    case "program":
      return `${shown} names ${word}, ${covered}, and the guard does not know whether ${command.split(" ")[0] ?? ""} reads or writes it`;
    case "into":
      return `${shown} writes ${word} when its destination is a directory, and ${word} is ${covered}`;
    case "walk":
      return `${shown} reads every file under ${word}, which may hold ${covered}`;
    case "walk-write":
      return `${shown} may write or remove any file under ${word}, which may hold ${covered}`;
    case "wild":
      return `the shell replaces ${word} when ${shown} runs (an expansion or a file name pattern), and it may name ${covered}`;
    case "unplaced":
      return `${shown} names ${word}, which starts at a place only known when it runs (a home directory or a working directory the guard cannot place), and may be ${covered}`;
    case "input":
      return `${shown} reaches the files named by the words ${word} reads from its input, which may name ${covered}`;
    case "list":
      return `${shown} reads the files ${word === "." ? "its input" : word} names, only known when it runs, which may name ${covered}`;
    case "code":
      return `${shown} runs code that names ${word}, ${covered}, and may open it`;
    case "unparsed":
      return `the command line cannot be parsed (${word}), so the guard cannot tell whether it reaches ${covered}`;
    case "environment":
      return `${shown} runs with ${word} set, through which the program loads code, options or files the guard does not read, and they may reach ${covered}`;
  }
}

/** Why a command that deletes files (`how`: "find -delete") is read as rm under a rule on rm. */
export function deletesLikeRmReason(shown: string, how: string): string {
  return `\`${shown}\` deletes files like rm (${how}), and a rule on rm holds for the commands that delete files as it does`;
}

/** Why a command that empties, cuts or overwrites files' content, or moves them to the trash (`how`), is read as rm under a rule on rm. */
export function destroysLikeRmReason(shown: string, how: string): string {
  return `\`${shown}\` destroys files' content like rm (${how}), and a rule on rm holds for the commands that destroy files as it does`;
}

/** Why a deleter's words cannot be read (an option the guard does not know), so that it may delete anything it names. */
export function unreadDeleterReason(shown: string, how: string, why: string): string {
  return `\`${shown}\` may delete files like rm (${how}), and its words cannot be read (${why}), so a rule on rm cannot tell what it deletes`;
}
