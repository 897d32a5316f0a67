export declare const HISTORY_WORDS: { pattern: RegExp; example: string; instead: string }[];
