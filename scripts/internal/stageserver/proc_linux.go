package stageserver

import "syscall"

// A server gets its own process group, so that Ctrl-C reaches only this program, which stops it in
// order; and the kernel kills it if this program dies first, even by SIGKILL, which other systems lack.
func init() { procAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL} }
