package stageserver

import "syscall"

// serverProcAttr puts a server in its own process group and has the kernel
// kill it if this program dies first, even by SIGKILL, which no deferred
// call survives: no server is left behind. (The kernel watches the thread
// that started the server; the Go runtime does not end its threads unless a
// goroutine locked to one exits, which this program never does.)
func serverProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
