export interface DoctorRow {
  check: string;
  status: "ok" | "fail" | "skip";
  detail: string;
  fix?: string;
}
export interface DoctorReport {
  title: string;
  rows: DoctorRow[];
}
export declare function runDoctor(options?: {
  env?: string;
  environ?: Record<string, string | undefined>;
  configPath?: string;
  secretsFile?: string;
  devVars?: string;
  credentials?: string;
  persistTo?: string;
}): Promise<DoctorReport>;
export declare function renderReport(report: DoctorReport): string;
