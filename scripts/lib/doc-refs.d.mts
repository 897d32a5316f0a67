export interface Problem {
  file: string;
  line: number;
  kind: "reference" | "link" | "history" | "decisions";
  message: string;
}
export declare const SCANNED: string[];
export declare const LINKED: string[];
export declare const DECISIONS: string;
export declare const PENDING: string;
export declare function checkDocRefs(root: string): Problem[];
export declare function pendingHistory(root: string): Problem[];
export declare function decisionIds(root: string): { records: Set<number>; folded: Map<number, number>; problems: Problem[] };
export declare function decisionReferences(text: string): { id: number; index: number | undefined }[];
export declare function historyProblems(file: string, text: string): Problem[];
export declare function headingAnchors(text: string): Set<string>;
export declare function slug(heading: string): string;
export declare function listFiles(root: string, roots: string[]): string[];
