package main

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
	readyTimeout = 30 * time.Second
	stopGrace    = 5 * time.Second
)

// server is one stage's server process, listening on a loopback port.
type server struct {
	name   string
	url    string // http://127.0.0.1:PORT
	cmd    *exec.Cmd
	logf   *os.File
	exited chan struct{} // closed once the process has exited
}

// startServer starts binary on a free loopback port, with its output going
// to logPath. cpus, if not empty, is a taskset CPU list to pin it to. The
// caller must call stop on every exit path; on Linux the process is also
// killed if this program dies without calling it.
func startServer(name, binary, logPath, cpus string) (*server, error) {
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
	s := &server{name: name, url: "http://" + addr, cmd: cmd, logf: logf, exited: make(chan struct{})}
	go func() {
		cmd.Wait()
		close(s.exited)
	}()
	return s, nil
}

// freePort asks the kernel for a free loopback port. Another process could
// take it before the server binds it; the server then exits at once, and
// waitReady says so.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// waitReady polls path until it answers 200, the server exits, ctx is
// cancelled or readyTimeout passes, and returns the body of that answer.
func (s *server) waitReady(ctx context.Context, path string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, readyTimeout)
	defer cancel()
	client := &http.Client{Timeout: time.Second}
	defer client.CloseIdleConnections()
	for {
		body, err := get(ctx, client, s.url+path)
		if err == nil {
			return body, nil
		}
		select {
		case <-s.exited:
			return nil, fmt.Errorf("%s exited before answering (%s); its log:\n%s", s.name, s.cmd.ProcessState, s.logTail())
		case <-ctx.Done():
			return nil, fmt.Errorf("%s did not answer GET %s within %v: %v", s.name, path, readyTimeout, err)
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

// stop ends the server: SIGTERM, which it answers with a graceful shutdown,
// then SIGKILL if it is still running after stopGrace. It returns once the
// process has exited, and may be called any number of times.
func (s *server) stop() {
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
	case <-time.After(stopGrace):
		s.cmd.Process.Kill()
		<-s.exited
	}
}

// logTail returns the end of the server's output, for an error message.
func (s *server) logTail() string {
	b, _ := os.ReadFile(s.logf.Name())
	const keep = 2000
	if len(b) > keep {
		b = b[len(b)-keep:]
	}
	return strings.TrimSpace(string(b))
}
