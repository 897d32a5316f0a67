export declare const ASSETS_DIR: string;
export declare function buildDocsAssets(): string;
