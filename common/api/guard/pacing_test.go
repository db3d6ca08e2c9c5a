package guard

import (
	"bufio"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/labstack/echo/v4"
)

// testPace is the pace of the rate tests: the minimum rate scaled up, so
// that a test takes seconds, and a grace of the same size as DefaultPace's
// beside the bursts of the kernel's buffers.
var testPace = Pace{Rate: 4 << 20, Grace: time.Second}

// newPacedServer serves a body of size bytes to every GET through a
// Listener and the Writer of a guard that keeps testPace, and returns its
// address and the channel on which each answer's write error, if any, arrives.
func newPacedServer(t *testing.T, size int) (string, <-chan error) {
	t.Helper()
	addr, failed, _ := newLoggedPacedServer(t, size)
	return addr, failed
}

// newLoggedPacedServer is newPacedServer, with the guard's log.
func newLoggedPacedServer(t *testing.T, size int) (string, <-chan error, *logBuffer) {
	t.Helper()
	g := New(DefaultLimits, nil)
	g.Pace = testPace
	logs := &logBuffer{}
	g.Log = log.New(logs, "", 0)
	body := make([]byte, size)
	failed := make(chan error, 1)
	e := echo.New()
	e.GET("/", g.Wrap(func(c echo.Context) error {
		c.Response().Header().Set("Content-Length", strconv.Itoa(size))
		c.Response().Write(body)
		failed <- c.Response().Writer.(*Writer).failed
		return nil
	}))
	ts := httptest.NewUnstartedServer(e)
	ts.Listener = g.Listen(ts.Listener, DefaultLimits)
	ts.Config.ConnContext = ConnContext
	ts.Config.ErrorLog = log.New(io.Discard, "", 0) // the Listener's close wakes Accept, which net/http logs
	ts.Start()
	t.Cleanup(ts.Close)
	return ts.Listener.Addr().String(), failed, logs
}

// logBuffer is a log that the server writes and the test reads.
type logBuffer struct {
	mu  sync.Mutex
	buf strings.Builder
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *logBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// steadyReader reads from r at rate bytes a second, catching up after any
// pause.
type steadyReader struct {
	r     io.Reader
	rate  float64
	start time.Time
	read  int
}

func (s *steadyReader) Read(p []byte) (int, error) {
	time.Sleep(time.Until(s.start.Add(time.Duration(float64(s.read) / s.rate * float64(time.Second)))))
	n, err := s.r.Read(p[:min(len(p), 16<<10)])
	s.read += n
	return n, err
}

// readSteadily asks addr for its body over a connection with a receive
// buffer of rcvbuf bytes, reads it at rate bytes a second, and returns the
// bytes of the body read.
func readSteadily(addr string, rcvbuf int, rate float64) (int64, error) {
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		return 0, err
	}
	defer conn.Close()
	if err := conn.(*net.TCPConn).SetReadBuffer(rcvbuf); err != nil {
		return 0, err
	}
	conn.SetDeadline(time.Now().Add(time.Minute)) // a test that fails ends
	if _, err := io.WriteString(conn, "GET / HTTP/1.1\r\nHost: test\r\n\r\n"); err != nil {
		return 0, err
	}
	resp, err := http.ReadResponse(bufio.NewReader(&steadyReader{r: conn, rate: rate, start: time.Now()}), nil)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	return io.Copy(io.Discard, resp.Body)
}

// receiveBuffers are a client's small and large receive buffers, which
// Linux doubles, and caps at net.core.rmem_max.
var receiveBuffers = []int{16 << 10, 1 << 20}

// TestMinimumRate reads a body of many times what the kernel's buffers
// hold, steadily, with a small and a large receive buffer. At 1.5 times the
// minimum rate the client must get the whole of it (at 1.1 times, a client
// descheduled on a loaded machine fell behind under -race). At half the minimum
// rate, once the buffers are full and the grace is spent, the answer must
// be cut, saying the rate it measured.
func TestMinimumRate(t *testing.T) {
	for _, rcvbuf := range receiveBuffers {
		for _, times := range []float64{1.5, 0.5} {
			t.Run(fmt.Sprintf("rcvbuf=%d/rate=%.1fx", rcvbuf, times), func(t *testing.T) {
				t.Parallel()
				const size = 16 << 20
				addr, failed := newPacedServer(t, size)
				read, err := readSteadily(addr, rcvbuf, times*float64(testPace.Rate))
				answer := <-failed
				if times > 1 {
					if answer != nil || err != nil || read != size {
						t.Errorf("read %d of %d bytes (%v), and the answer ended with %v; want the whole body", read, size, err, answer)
					}
					return
				}
				cut, ok := answer.(*CutError)
				if !ok {
					t.Fatalf("read %d of %d bytes, and the answer ended with %v; want a cut for the rate", read, size, answer)
				}
				if !strings.Contains(cut.Why, fmt.Sprintf("fell behind the minimum rate of %d KiB/s", testPace.Rate>>10)) {
					t.Errorf("the cut says %q: want the minimum rate it fell behind", cut.Why)
				}
			})
		}
	}
}

// TestCutLogsTheRateTheClientRead reads at a third of the minimum rate,
// through a large receive buffer, which the kernel fills before the
// client has read much: the log of the cut must state the rate the client
// read at, as the client measures it, within a fifth. What the kernel
// took in the seconds before the cut is a fraction of it.
func TestCutLogsTheRateTheClientRead(t *testing.T) {
	const size = 64 << 20
	addr, failed, logs := newLoggedPacedServer(t, size)
	rate := float64(testPace.Rate) / 3
	start := time.Now()
	read, _ := readSteadily(addr, 1<<20, rate)
	measured := float64(read) / 1024 / time.Since(start).Seconds()
	if _, ok := (<-failed).(*CutError); !ok {
		t.Fatalf("read %d of %d bytes; want a cut for the rate", read, size)
	}
	var logged float64
	for give := time.Now().Add(10 * time.Second); time.Now().Before(give); time.Sleep(10 * time.Millisecond) {
		if _, line, ok := strings.Cut(logs.String(), "from the first until it closed the connection: "); ok {
			fmt.Sscanf(line, "%f KiB/s", &logged)
			break
		}
	}
	t.Logf("client %.1f KiB/s, log %.1f KiB/s", measured, logged)
	if logged < 0.8*measured || logged > 1.2*measured {
		t.Errorf("the client read at %.1f KiB/s, and the log says %.1f KiB/s; want within a fifth:\n%s", measured, logged, logs)
	}
}
