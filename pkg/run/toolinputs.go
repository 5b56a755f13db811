package run

// The tools' inputs: each is a tool's arguments as the REST API and models
// give them. Their tags give the input schema (see Tool.InputSchema) and
// the REST contract.

// ExecInput is an execute call.
type ExecInput struct {
	Command string `json:"command" example:"python3 -c 'print(6*7)'" doc:"The shell command line to run"`
	Timeout int    `json:"timeout" binding:"optional" example:"60" minimum:"1" doc:"Seconds the command may run; the sandbox's timeout caps it and is the default"`
	// OnOutput, when set, streams output as it arrives.
	OnOutput func(stream, text string) `json:"-"`
	Approved bool                      `json:"-"`
} //@name ExecuteRequest

// ListInput is an ls call.
type ListInput struct {
	Path string `json:"path" maxLength:"4096" binding:"optional" doc:"The directory; relative paths resolve against the working directory, the default"`
}

// ReadInput is a read_file call.
type ReadInput struct {
	Path   string `json:"path" maxLength:"4096" doc:"The file; relative paths resolve against the working directory"`
	Offset int    `json:"offset" binding:"optional" minimum:"0" default:"0" doc:"The first line to read, from 0"`
	Limit  int    `json:"limit" binding:"optional" minimum:"1" maximum:"20000" default:"2000" doc:"The most lines to read"`
}

// WriteInput is a write_file call.
type WriteInput struct {
	Path    string `json:"path" maxLength:"4096" doc:"The file to create; relative paths resolve against the working directory"`
	Content []byte `json:"content" doc:"The file's content"`
}

// EditInput is an edit_file call.
type EditInput struct {
	Path       string `json:"path" maxLength:"4096" doc:"The text file to change; relative paths resolve against the working directory"`
	OldString  string `json:"old_string" doc:"The exact text to replace, as it is in the file"`
	NewString  string `json:"new_string" doc:"The text to put in its place"`
	ReplaceAll bool   `json:"replace_all" binding:"optional" doc:"Replace every occurrence, not only a single one"`
} //@name EditRequest

// GlobInput is a glob call.
type GlobInput struct {
	Pattern string `json:"pattern" maxLength:"1024" doc:"* and ? within a name, [abc] a class, {py,ts} a set, ** across directories, e.g. **/*.{py,ts}"`
	Path    string `json:"path" maxLength:"4096" binding:"optional" doc:"The directory to search; the working directory by default"`
}

// GrepInput is a grep call.
type GrepInput struct {
	Pattern string `json:"pattern" maxLength:"1024" doc:"The text to find, taken literally"`
	Path    string `json:"path" maxLength:"4096" binding:"optional" doc:"The file or directory to search; the working directory by default"`
}
