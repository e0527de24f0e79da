import { carriedUrlReason, netReachDoubt, netReachReason } from "../../messages/index.js";
import { analyzeShell } from "./shell.js";
import { NO, UNKNOWN, YES, type Verdict } from "./verdict.js";

/**
 * A fetch tool's deny or ask rule (`WebFetch(domain:evil.example)`, a `url` or `domain` condition on a tool whose main
 * argument is a URL) read for the shell: a command line reaches a place it covers when one of its simple commands
 * (shell.ts: wrappers unwrapped, `bash -c` scripts, substitutions) connects there, as programs.ts reads the programs
 * that fetch (curl, wget, git clone, pip, npm, …: every URL, proxy and server they name, in every spelling of its host).
 * A place only known when the line runs (an expansion, a configuration or URL file, words xargs adds, a proxy set in
 * the environment, inline code that connects) cannot be told. Not seen: a program that connects by itself (`node
 * fetch.js URL`), and the remotes a repository's configuration holds (`git fetch origin`, `git pull`).
 */

/** A URL whose query carries another (`?next=http://…`, percent-encoded too). */
const CARRIES_URL = /[?&][^=&#]*=[^&#]*(?::|%3a)(?:\/|%2f){2}/i;

/** A command line's reach of one rule's places: YES (reason), UNKNOWN (why), or NO. */
interface NetReach {
  readonly verdict: Verdict;
  readonly reason: string | undefined;
}

/** A fetch tool's rule as the shell reads it: `test` says whether a place (a URL or an origin) is one it covers. */
export interface NetRule {
  readonly mode: string;
  /** The rule as the user wrote it (`WebFetch(domain:evil.example)`). */
  readonly source: string;
  readonly test: (place: string) => Verdict;
}

/** Whether the command line `text` connects to a place `rule` covers. */
export function judgeNetReach(text: string, rule: NetRule): NetReach {
  const analysis = analyzeShell(text);
  if (!analysis.ok) return { verdict: UNKNOWN, reason: netReachDoubt("", `the command line cannot be parsed (${analysis.reason})`, rule.mode, rule.source) };
  let doubt: string | undefined;
  for (const command of analysis.commands) {
    if (command.construct) continue;
    const shown = command.words.join(" ");
    const connects = command.connects;
    // The origins are read places (scheme://host[:port]); the words they came from are tried too, for a rule on a path.
    for (const place of connects?.origins ?? []) {
      const verdict = rule.test(place);
      if (verdict === YES) return { verdict: YES, reason: netReachReason(shown, place, rule.mode, rule.source) };
      if (verdict === UNKNOWN) doubt ??= netReachDoubt(shown, `the guard cannot read where ${place} is`, rule.mode, rule.source);
    }
    for (const place of connects?.places ?? []) {
      const verdict = rule.test(place);
      if (verdict === YES) return { verdict: YES, reason: netReachReason(shown, place, rule.mode, rule.source) };
      // A URL the guard reads but cannot decide (one its query carries, where the server may redirect): a doubt. A word it
      // cannot read as a URL at all (a package name some fetchers take) is the fetcher's, and read in its origins.
      if (verdict === UNKNOWN && place.includes("://")) doubt ??= netReachDoubt(shown, CARRIES_URL.test(place) ? carriedUrlReason(place) : `the guard cannot read where ${place} leads`, rule.mode, rule.source);
    }
    // bash's own network redirections (`cat </dev/tcp/HOST/PORT`).
    for (const redirect of command.redirects ?? []) {
      const reach = socketReach(shown, redirect.word, rule);
      if (reach?.verdict === YES) return reach;
      if (reach !== undefined) doubt ??= reach.reason;
    }
    // Where the repository's configuration says a remote is (`git fetch origin`, `git pull`) is not read: not a doubt of its own.
    if (command.placesUnknown !== undefined && command.placesUnknown !== connects?.configured) doubt ??= netReachDoubt(shown, command.placesUnknown, rule.mode, rule.source);
    if (connects === undefined) continue;
    // A fetcher whose places are not all in its words: read from a file, added by xargs, or replaced by the shell.
    if (command.unknown !== undefined) doubt ??= netReachDoubt(shown, command.unknown, rule.mode, rule.source);
    else if (command.input !== undefined) doubt ??= netReachDoubt(shown, command.input.reason, rule.mode, rule.source);
    else if (command.dynamic) doubt ??= netReachDoubt(shown, "a place it connects to is only known when the command runs (an expansion or substitution)", rule.mode, rule.source);
  }
  for (const bare of analysis.bare ?? []) {
    for (const redirect of bare.redirects) {
      const reach = socketReach(`< ${redirect.word}`, redirect.word, rule);
      if (reach?.verdict === YES) return reach;
      if (reach !== undefined) doubt ??= reach.reason;
    }
  }
  return doubt === undefined ? { verdict: NO, reason: undefined } : { verdict: UNKNOWN, reason: doubt };
}

/** A redirection to bash's `/dev/tcp/HOST/PORT` (or `/dev/udp/…`) that reaches a place the rule covers. */
function socketReach(shown: string, word: string, rule: NetRule): NetReach | undefined {
  const socket = /^\/dev\/(?:tcp|udp)\/([^/]+)\/([^/]+)$/.exec(word);
  if (socket === null) return undefined;
  // A host or port the shell replaces (`/dev/tcp/$HOST/80`) is only known when the line runs.
  if (/[$`]/.test(word)) return { verdict: UNKNOWN, reason: netReachDoubt(shown, `${word} is a connection to a place only known when the line runs`, rule.mode, rule.source) };
  const place = `http://${socket[1]!.includes(":") ? `[${socket[1]!}]` : socket[1]!}:${socket[2]!}`;
  return rule.test(place) === YES ? { verdict: YES, reason: netReachReason(shown, `${socket[1]!} port ${socket[2]!}`, rule.mode, rule.source) } : undefined;
}
