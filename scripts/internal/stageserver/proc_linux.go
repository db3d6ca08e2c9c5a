package stageserver

import "syscall"

// On Linux a server gets its own process group, so that Ctrl-C reaches only
// this program, which then stops the server in order; and the kernel kills
// it if this program dies first, even by SIGKILL. Other systems lack the
// second: there a server outlives a program killed by SIGKILL, and Stop
// ends it on every other exit path.
func init() { procAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL} }
