export declare const CLIENT_DIR: string;
export declare const DOCUMENT_PATH: string;
export declare const SCHEMA_TYPES_PATH: string;
export declare const SECURITY_PATH: string;
export declare function buildDocument(): Promise<Record<string, any>>;
export declare function serializeDocument(document: unknown): string;
export declare function generateSchemaTypes(document: unknown): Promise<string>;
export declare function generateSecurityModule(document: Record<string, any>): string;
