// Package stageserver starts a stage's server binary on a free loopback
// port, waits until it answers, and stops it again, leaving no process
// behind. The load test and the cross-server check both use it.
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
	"strings"
	"syscall"
	"time"
)

// How long a server may take to answer its first request (it generates its
// users first) and to exit after SIGTERM before it is killed. Variables so
// that the tests can shorten them.
var (
	ReadyTimeout = 30 * time.Second
	StopGrace    = 5 * time.Second
)

// Server is one stage's server process, listening on a loopback port.
type Server struct {
	Name   string
	URL    string // http://127.0.0.1:PORT
	cmd    *exec.Cmd
	logf   *os.File
	exited chan struct{} // closed once the process has exited
}

// Start starts binary on a free loopback port, with its output going
// to logPath. cpus, if not empty, is a taskset CPU list to pin it to. The
// caller must call Stop on every exit path; on Linux the process is also
// killed if this program dies without calling it.
func Start(name, binary, logPath, cpus string) (*Server, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	argv := []string{binary, "-addr", addr}
	if cpus != "" {
		argv = append([]string{"taskset", "-c", cpus}, argv...) // taskset execs the server: same pid
	}
	logf, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdout, cmd.Stderr = logf, logf
	// Its own process group: Ctrl-C in the terminal reaches this program,
	// which then stops the server in order, instead of both at once.
	cmd.SysProcAttr = serverProcAttr()
	if err := cmd.Start(); err != nil {
		logf.Close()
		return nil, fmt.Errorf("starting %s: %w", name, err)
	}
	s := &Server{Name: name, URL: "http://" + addr, cmd: cmd, logf: logf, exited: make(chan struct{})}
	go func() {
		cmd.Wait()
		close(s.exited)
	}()
	return s, nil
}

// freePort asks the kernel for a free loopback port. Another process could
// take it before the server binds it; the server then exits at once, and
// WaitReady says so.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// WaitReady polls path until it answers 200, the server exits, ctx is
// cancelled or ReadyTimeout passes, and returns the body of that answer.
func (s *Server) WaitReady(ctx context.Context, path string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, ReadyTimeout)
	defer cancel()
	client := &http.Client{Timeout: time.Second}
	defer client.CloseIdleConnections()
	for {
		body, err := get(ctx, client, s.URL+path)
		if err == nil {
			return body, nil
		}
		select {
		case <-s.exited:
			return nil, fmt.Errorf("%s exited before answering (%s); its log:\n%s", s.Name, s.cmd.ProcessState, s.logTail())
		case <-ctx.Done():
			return nil, fmt.Errorf("%s did not answer GET %s within %v: %v", s.Name, path, ReadyTimeout, err)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

func get(ctx context.Context, client *http.Client, url string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err == nil && resp.StatusCode != http.StatusOK {
		err = fmt.Errorf("status %s", resp.Status)
	}
	return body, err
}

// Stop ends the server: SIGTERM, which it answers with a graceful shutdown,
// then SIGKILL if it is still running after StopGrace. It returns once the
// process has exited, and may be called any number of times.
func (s *Server) Stop() {
	defer s.logf.Close()
	select {
	case <-s.exited:
		return
	default:
	}
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil && !errors.Is(err, os.ErrProcessDone) {
		s.cmd.Process.Kill()
	}
	select {
	case <-s.exited:
	case <-time.After(StopGrace):
		s.cmd.Process.Kill()
		<-s.exited
	}
}

// ExitState describes how the process ended ("exit status 0", "signal:
// killed"), or is empty while it runs.
func (s *Server) ExitState() string {
	select {
	case <-s.exited:
		return s.cmd.ProcessState.String()
	default:
		return ""
	}
}

// logTail returns the end of the server's output, for an error message.
func (s *Server) logTail() string {
	b, _ := os.ReadFile(s.logf.Name())
	const keep = 2000
	if len(b) > keep {
		b = b[len(b)-keep:]
	}
	return strings.TrimSpace(string(b))
}
