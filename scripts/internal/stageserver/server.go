// Package stageserver starts a stage's server binary on a free loopback port, for the load test
// and the cross-server check, and stops it, leaving no process behind.
package stageserver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"syscall"
	"time"
)

// readyTimeout bounds a server's start (it generates its users first).
const readyTimeout = 30 * time.Second

// StopGrace bounds a server's graceful shutdown before it is killed; tests shorten it.
var StopGrace = 5 * time.Second

var procAttr *syscall.SysProcAttr // see proc_linux.go

// Server is one stage's server process, listening on a loopback port.
type Server struct {
	Name, URL, log string // URL is http://127.0.0.1:PORT
	cmd            *exec.Cmd
	stop           context.CancelFunc
	exited         chan struct{} // closed when cmd.Wait returns
}

// Start starts binary, its output going to logPath, pinned to the taskset CPU list cpus if not
// empty. The caller must call Stop on every exit path. Should another process take the port
// before the server binds it, the server exits at once, and WaitReady says so.
func Start(name, binary, logPath, cpus string) (*Server, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	addr := l.Addr().String()
	l.Close()
	argv := []string{binary, "-addr", addr}
	if cpus != "" {
		argv = append([]string{"taskset", "-c", cpus}, argv...) // taskset execs the server: same pid
	}
	log, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	defer log.Close() // the server has its own copy
	ctx, stop := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Stdout, cmd.Stderr, cmd.SysProcAttr = log, log, procAttr
	// Stop cancels ctx: SIGTERM, then a kill StopGrace later, or at once where there is no SIGTERM (Windows).
	cmd.Cancel = func() error {
		if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
			return cmd.Process.Kill()
		}
		return nil
	}
	cmd.WaitDelay = StopGrace
	if err := cmd.Start(); err != nil {
		stop()
		return nil, fmt.Errorf("starting %s: %w", name, err)
	}
	s := &Server{Name: name, URL: "http://" + addr, log: logPath, cmd: cmd, stop: stop, exited: make(chan struct{})}
	go func() { cmd.Wait(); close(s.exited) }()
	return s, nil
}

// WaitReady polls path until it answers 200, and returns that body; or until the server exits,
// ctx is cancelled or readyTimeout passes.
func (s *Server) WaitReady(ctx context.Context, path string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, readyTimeout)
	defer cancel()
	for {
		body, err := get(s.URL + path)
		if err == nil {
			return body, nil
		}
		select {
		case <-s.exited:
			// Its output, for the log may go with a run that is not kept.
			out, _ := os.ReadFile(s.log)
			return nil, fmt.Errorf("%s exited before answering (%v); its output:\n%s", s.Name, s.cmd.ProcessState, out[max(0, len(out)-2000):])
		case <-ctx.Done():
			return nil, fmt.Errorf("%s did not answer GET %s within %v: %w", s.Name, path, readyTimeout, err)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// get returns the body of url's 200 answer within a second.
func get(url string) ([]byte, error) {
	resp, err := (&http.Client{Timeout: time.Second}).Get(url)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, errors.New(resp.Status)
	}
	return io.ReadAll(resp.Body)
}

// Stop ends the server (see Start), waits until it has exited, and says how ("signal: killed").
// It may be called any number of times.
func (s *Server) Stop() *os.ProcessState {
	s.stop()
	<-s.exited
	return s.cmd.ProcessState
}
