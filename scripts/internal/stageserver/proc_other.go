//go:build !linux

package stageserver

import "syscall"

// serverProcAttr has no portable way to tie a server's life to this
// program's outside Linux; the deferred stop calls and the signal handler
// stop the servers on every exit path except SIGKILL.
func serverProcAttr() *syscall.SysProcAttr { return nil }
