import type { components } from "../../../api/schema.gen";

type Schemas = components["schemas"];

export type Run = Schemas["Run"];
export type RunSandbox = Schemas["RunSandbox"];
export type Thread = Schemas["Thread"];
export type DirectoryEntry = Schemas["FileEntry"];
export type FileContent = Schemas["FileContent"];
export type ExecuteResult = Schemas["ExecuteResult"];
export type ExecuteExit = Omit<ExecuteResult, "output">;
export type RunStartStep = Schemas["RunStartStep"];
export type StartFailure = Schemas["StartFailure"];
