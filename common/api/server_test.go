package api

import (
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"syscall"
	"testing"

	"example.com/userperf/common/user"
)

// seenAs is a listener that reports another address than the one it is
// bound to, so that a test can serve a "non-loopback" listener while only
// ever listening on 127.0.0.1.
type seenAs struct {
	net.Listener
	addr net.Addr
}

func (l seenAs) Addr() net.Addr { return l.addr }

func listenLoopback(t *testing.T) net.Listener {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// running is a server being served by a test.
type running struct {
	signals chan os.Signal
	done    chan struct{} // closed when serve has returned err
	err     error
}

// wait returns what serve returned, once it has.
func (r *running) wait() error {
	<-r.done
	return r.err
}

// startServer serves s until the test stops it with a signal, or until
// the test ends.
func startServer(t *testing.T, s *server) *running {
	t.Helper()
	r := &running{signals: make(chan os.Signal, 2), done: make(chan struct{})}
	go func() {
		r.err = s.serve(r.signals)
		close(r.done)
	}()
	t.Cleanup(func() {
		select {
		case <-r.done:
		default:
			r.signals <- syscall.SIGTERM
			r.signals <- syscall.SIGTERM
			<-r.done
		}
	})
	return r
}

// get answers GET url's status and body.
func get(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(body)
}

func newTestServer(t *testing.T, api, profiling net.Listener) (*server, *syncBuffer) {
	t.Helper()
	logger, logs := newTestLogger()
	users := user.MustGenerate(user.MinCount, user.DefaultSeed)
	s, err := newServer(testConfig(), newMapStage(users), users, api, profiling, logger)
	if err != nil {
		t.Fatal(err)
	}
	return s, logs
}

func TestLoopbackAPIServesProfiling(t *testing.T) {
	l := listenLoopback(t)
	s, logs := newTestServer(t, l, nil)
	startServer(t, s)
	base := "http://" + l.Addr().String()
	if status, _ := get(t, base+"/debug/pprof/"); status != http.StatusOK {
		t.Errorf("GET /debug/pprof/ on a loopback API: status %d, want 200", status)
	}
	if status, _ := get(t, base+"/users?role=admin"); status != http.StatusOK {
		t.Errorf("GET /users?role=admin: status %d", status)
	}
	if strings.Contains(logs.String(), "WARNING") {
		t.Errorf("a warning for a loopback API:\n%s", logs)
	}
}

func TestAPIBeyondLoopbackHidesProfilingAndWarns(t *testing.T) {
	l := listenLoopback(t)
	port := l.Addr().(*net.TCPAddr).Port
	for _, ip := range []net.IP{net.IPv4zero, net.IPv6unspecified, net.IPv4(192, 0, 2, 7)} {
		s, logs := newTestServer(t, seenAs{l, &net.TCPAddr{IP: ip, Port: port}}, nil)
		r := startServer(t, s)
		base := "http://" + l.Addr().String()
		for _, path := range []string{"/debug/pprof/", "/debug/pprof/cmdline", "/debug/pprof/profile?seconds=1", "/debug/pprof/goroutine?debug=2"} {
			status, body := get(t, base+path)
			if status != http.StatusNotFound || !strings.HasPrefix(body, `{"error":`) {
				t.Errorf("API seen as %v: GET %s answers %d %.100q, want a 404 JSON error", ip, path, status, body)
			}
		}
		if status, _ := get(t, base+"/users?role=admin"); status != http.StatusOK {
			t.Errorf("API seen as %v: GET /users?role=admin: status %d", ip, status)
		}
		if out := logs.String(); !strings.Contains(out, "WARNING: the API listens on") || !strings.Contains(out, "profiling is not served") {
			t.Errorf("API seen as %v: no warning, or no word that profiling is off:\n%s", ip, out)
		}
		r.signals <- syscall.SIGTERM
		if err := r.wait(); err != nil {
			t.Fatal(err)
		}
		l = listenLoopback(t) // the server closed the last one
		port = l.Addr().(*net.TCPAddr).Port
	}
	l.Close()
}

func TestProfilingOnItsOwnListener(t *testing.T) {
	api, profiling := listenLoopback(t), listenLoopback(t)
	s, _ := newTestServer(t, api, profiling)
	startServer(t, s)
	if status, _ := get(t, "http://"+api.Addr().String()+"/debug/pprof/"); status != http.StatusNotFound {
		t.Errorf("GET /debug/pprof/ on the API when -pprof-addr is given: status %d, want 404", status)
	}
	if status, _ := get(t, "http://"+profiling.Addr().String()+"/debug/pprof/"); status != http.StatusOK {
		t.Errorf("GET /debug/pprof/ on the profiling listener: status %d, want 200", status)
	}
	if status, _ := get(t, "http://"+profiling.Addr().String()+"/users?role=admin"); status != http.StatusNotFound {
		t.Errorf("GET /users on the profiling listener: status %d, want 404", status)
	}
}

func TestProfilingListenerBeyondLoopbackIsRefused(t *testing.T) {
	api, l := listenLoopback(t), listenLoopback(t)
	profiling := seenAs{l, &net.TCPAddr{IP: net.IPv4zero, Port: 6060}}
	logger, logs := newTestLogger()
	_, err := newServer(testConfig(), newMapStage(nil), nil, api, profiling, logger)
	if err == nil || !strings.Contains(err.Error(), "not loopback") {
		t.Errorf("a profiling listener on %v: error %v, want a refusal", profiling.Addr(), err)
	}
	if logs.String() != "" {
		t.Errorf("logged before refusing:\n%s", logs)
	}
	if conn, err := net.Dial("tcp", api.Addr().String()); err == nil {
		conn.Close()
		t.Errorf("the API listener is still open after the refusal")
	}
}

func TestAddressInUseIsNotLoggedAsServing(t *testing.T) {
	taken := listenLoopback(t)
	defer taken.Close()
	for _, cfg := range []config{
		func() config { c := testConfig(); c.addr = taken.Addr().String(); return c }(),
		func() config { c := testConfig(); c.pprofAddr = taken.Addr().String(); return c }(),
	} {
		logger, logs := newTestLogger()
		if _, err := listen(cfg, newMapStage, logger); err == nil {
			t.Errorf("-addr %s -pprof-addr %s: listening on a taken address succeeded", cfg.addr, cfg.pprofAddr)
		}
		if logs.String() != "" {
			t.Errorf("-addr %s -pprof-addr %s: logged before failing:\n%s", cfg.addr, cfg.pprofAddr, logs)
		}
	}
}

func TestMaxUsersFlagReachesTheHandler(t *testing.T) {
	l := listenLoopback(t)
	logger, _ := newTestLogger()
	users := user.MustGenerate(user.MinCount, user.DefaultSeed)
	cfg := testConfig()
	cfg.limits.MaxUsers = len(users) + 1
	s, err := newServer(cfg, newMapStage(users), users, l, nil, logger)
	if err != nil {
		t.Fatal(err)
	}
	startServer(t, s)
	var statuses []int
	for _, id := range []string{"max-1", "max-2"} {
		body := `{"id":"` + id + `","name":"Max","email":"max@example.com","roles":["admin"]}`
		resp, err := http.Post("http://"+l.Addr().String()+"/users", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		var answer map[string]any
		json.NewDecoder(resp.Body).Decode(&answer)
		resp.Body.Close()
		statuses = append(statuses, resp.StatusCode)
		if resp.StatusCode == http.StatusConflict && answer["error"] == nil {
			t.Errorf("the refused POST's body %v is not a JSON error", answer)
		}
	}
	if statuses[0] != http.StatusCreated || statuses[1] != http.StatusConflict {
		t.Errorf("two POSTs with room for one: statuses %v, want [201 409]", statuses)
	}
}
