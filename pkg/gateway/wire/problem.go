package wire

import "github.com/auxilia/sandboxes/pkg/auxilia"

// Problem is the gateway's error answer, an RFC 9457 problem document. Its
// Reason is one of the codes the API speaks (auxilia.Codes); its Subject
// says what the reason is about where the code alone would lose a
// distinction the client needs.
type Problem struct {
	Type    string       `json:"type"`
	Title   string       `json:"title"`
	Status  int          `json:"status"`
	Detail  string       `json:"detail"`
	Reason  auxilia.Code `json:"reason"`
	Subject Subject      `json:"subject,omitempty"`
	Errors  []FieldError `json:"errors,omitempty"`
}

// Subject is what a problem's reason is about.
type Subject string

// Subjects a problem may carry; Subjects lists every one.
const (
	SubjectSandbox   Subject = "sandbox"
	SubjectSnapshot  Subject = "snapshot"
	SubjectFile      Subject = "file"
	SubjectDirectory Subject = "directory"
	SubjectPath      Subject = "path"
	SubjectArchive   Subject = "archive"
	SubjectBucket    Subject = "bucket"
	SubjectStorage   Subject = "storage"
	SubjectSecret    Subject = "secret"
	SubjectCapacity  Subject = "capacity"
	SubjectCommand   Subject = "command"
	SubjectLauncher  Subject = "launcher"
	SubjectRoute     Subject = "route"
)

// Subjects lists every Subject, in the order they are declared.
func Subjects() []Subject {
	return []Subject{SubjectSandbox, SubjectSnapshot, SubjectFile, SubjectDirectory, SubjectPath,
		SubjectArchive, SubjectBucket, SubjectStorage, SubjectSecret, SubjectCapacity, SubjectCommand,
		SubjectLauncher, SubjectRoute}
}

// FieldError names one broken field of a request body.
type FieldError struct {
	Field   string `json:"field"`
	Message string `json:"message"`
}
