package daytonatest

import (
	"net/http"
	"strconv"
	"time"
)

// Operation names: Daytona's own operationIds, for counting calls and
// injecting faults.
const (
	OpGetCurrentAPIKey   = "getCurrentApiKey"
	OpCreateSandbox      = "createSandbox"
	OpGetSandbox         = "getSandbox"
	OpListSandboxes      = "listSandboxes"
	OpStartSandbox       = "startSandbox"
	OpStopSandbox        = "stopSandbox"
	OpPauseSandbox       = "pauseSandbox"
	OpResizeSandbox      = "resizeSandbox"
	OpArchiveSandbox     = "archiveSandbox"
	OpDeleteSandbox      = "deleteSandbox"
	OpRecoverSandbox     = "recoverSandbox"
	OpUpdateLastActivity = "updateLastActivity"
	OpGetToolboxProxyURL = "getToolboxProxyUrl"
	OpReplaceLabels      = "replaceLabels"

	OpGetWorkDir     = "GetWorkDir"
	OpGetUserHomeDir = "GetUserHomeDir"
	OpGetVersion     = "GetVersion"
	OpExecuteCommand = "ExecuteCommand"
	OpListFiles      = "ListFiles"
	OpGetFileInfo    = "GetFileInfo"
	OpDownloadFile   = "DownloadFile"
	OpUploadFile     = "UploadFile"
	OpCreateFolder   = "CreateFolder"
	OpDeleteFile     = "DeleteFile"
	OpSearchFiles    = "SearchFiles"
	OpFindInFiles    = "FindInFiles"
	OpReplaceInFiles = "ReplaceInFiles"

	OpCreateSession         = "CreateSession"
	OpSessionExecuteCommand = "SessionExecuteCommand"
	OpGetSessionCommand     = "GetSessionCommand"
	OpGetSessionCommandLogs = "GetSessionCommandLogs"
	OpDeleteSession         = "DeleteSession"

	OpCreatePtySession  = "CreatePtySession"
	OpListPtySessions   = "ListPtySessions"
	OpGetPtySession     = "GetPtySession"
	OpDeletePtySession  = "DeletePtySession"
	OpConnectPtySession = "ConnectPtySession"
	OpResizePtySession  = "ResizePtySession"

	OpOther = "other"
)

// Fault is an answer the fake gives instead of its own, the next Times
// calls of an operation.
type Fault struct {
	Status int
	Times  int // 0 means once
	Header http.Header
	// Body is sent as it is; empty means Daytona's own error body for the
	// status, in the dialect of the server answering.
	Body    string
	Message string // the message of that own body; empty means the status text
	// Lost makes the fake do what was asked before answering with the
	// fault, as when a gateway gives up on a call the server carried out.
	Lost bool
}

// Inject queues f for op's next calls.
func (s *Server) Inject(op string, f Fault) { s.faults.Queue(op, f, f.Times) }

// RateLimit answers op's next times calls with Daytona's 429, whose
// headers ask to wait retryAfter (whole seconds, as Daytona sends them).
func (s *Server) RateLimit(op string, times int, retryAfter time.Duration) {
	secs := strconv.Itoa(int(retryAfter.Round(time.Second) / time.Second))
	h := http.Header{}
	h.Set("Retry-After-authenticated", secs)
	h.Set("X-RateLimit-Limit-authenticated", "100")
	h.Set("X-RateLimit-Remaining-authenticated", "0")
	h.Set("X-RateLimit-Reset-authenticated", secs)
	s.Inject(op, Fault{Status: http.StatusTooManyRequests, Times: times, Header: h, Message: "ThrottlerException: Too Many Requests"})
}

// StateChangeStorm answers op's next times calls with Daytona's 409
// "Sandbox state change in progress".
func (s *Server) StateChangeStorm(op string, times int) {
	s.Inject(op, Fault{Status: http.StatusConflict, Times: times, Message: "Sandbox state change in progress"})
}
