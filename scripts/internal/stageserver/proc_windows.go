package stageserver

import "os"

// Windows has no SIGTERM to ask a server to shut down gracefully: Stop
// kills it. Nor does it end a server whose parent was killed first; Stop
// ends it on every other exit path.
func init() { stopSignal = os.Kill }
