// Phrases that narrate past work instead of describing the system as it is. The reference check
// (scripts/lib/doc-refs.mjs) refuses them anywhere in the repository's text; this file and the
// pending list are the only places they may appear. Each entry carries an example the check's
// own test plants in a scratch repository, so the test never spells the phrase itself.
//
// What to write instead: say why the code is as it is now ("a transfer clears the approval, so
// …"), name the test that pins a behaviour rather than the code it replaced, and leave the
// story of a change to its commit message.

/** @type {{ pattern: RegExp, example: string, instead: string }[]} */
export const HISTORY_WORDS = [
  { pattern: /\bstops? \d+/gi, example: "as measured at stop 27", instead: "drop the work period; git has it" },
  { pattern: /\bthis stop\b/gi, example: "this stop's changes", instead: "drop the work period" },
  { pattern: /\bsession \d+/gi, example: "found in session 12", instead: "drop the work period" },
  { pattern: /\breview-s\d+/gi, example: "see /tmp/review-s27b.md", instead: "drop the pointer to a review file" },
  { pattern: /\baudit/gi, example: "the audit found", instead: "state the rule and its reason" },
  { pattern: /\bprevious code\b/gi, example: "fails on the previous code", instead: "say what the test proves" },
  { pattern: /\bold code\b/gi, example: "the old code answered 502", instead: "say what the test proves" },
  { pattern: /\bthe code before\b/gi, example: "fails on the code before", instead: "say what the test proves" },
  { pattern: /\b(?:before|without) (?:this|the) change\b/gi, example: "fails without the change", instead: "say what the test proves" },
  { pattern: /\bfirst version\b/gi, example: "the first version checked storage", instead: "describe the current design" },
  { pattern: /\bbefore, none\b/gi, example: "(before, none)", instead: "describe the current design" },
  { pattern: /\bpreviously\b/gi, example: "previously a 400", instead: "describe the current behaviour" },
  { pattern: /\bused to\b/gi, example: "which used to be refused", instead: "describe the current behaviour" },
  { pattern: /\bas before\b/gi, example: "claimed as before", instead: "describe the current behaviour" },
  { pattern: /\bsince (?:decision|fixed)\b/gi, example: "since decision 1", instead: "cite the record that holds the rule" },
  { pattern: /\bamended\b/gi, example: "amended in place", instead: "state the rule in force" },
  { pattern: /\bthe review\b/gi, example: "from the review of this change", instead: "state the rule and its reason" },
  { pattern: /\b\w+'s review\b|\breview (?:found|showed)\b/gi, example: "as the engine's review found", instead: "state the rule and its reason" },
  { pattern: /\bnoticed and left\b/gi, example: "Noticed and left:", instead: "list the limit as a limit" },
  { pattern: /\bhelper report/gi, example: "(helper report)", instead: "drop the provenance" },
  { pattern: /\bthis machine\b/gi, example: "on this machine", instead: "name the machine (cores, CPU) the figure was measured on" },
];
