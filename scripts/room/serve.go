package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"log"
	"maps"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"example.com/userperf/common/api/guard"
)

// A hand-in file is a few kilobytes (its verdicts and benchmark lines);
// maxBody leaves it room. The page reloads itself every refreshSeconds.
const (
	maxBody        = 256 << 10
	refreshSeconds = 5
)

// secretKey is the line of a kept hand-in that holds the SHA-256 of its
// participant's secret: the room's own line, which a hand-in may not carry.
const secretKey = "room-secret-sha256"

// server keeps the room's hand-ins, one file per participant's id in dir,
// so that a restart loses none, and serves the room's page.
type server struct {
	dir     string
	isStart func(stage string) bool
	send    string // the command that hands in here, shown on the page
	limits  limits
	addrs   *addresses

	mu           sync.Mutex
	hands        map[string]hand // by id
	refused      int             // new participants refused for their address's limit
	wrongSecrets int             // hand-ins refused for a secret that is not their id's
	throttled    int             // hand-ins refused unread for their address's wrong secrets
	version      int             // changes with the hands and refused

	pageMu      sync.Mutex // one page is made at a time, and shared
	pageVersion int
	pageBytes   []byte
	pagesMade   int
}

// newServer loads the hand-ins that dir holds already, and removes the
// temporary files that a crash in writeAtomically left there.
func newServer(dir string, isStart func(string) bool, l limits) (*server, error) {
	s := &server{dir: dir, isStart: isStart, limits: l, addrs: newAddresses(l), hands: map[string]hand{}}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	temps, _ := filepath.Glob(filepath.Join(dir, ".handin-*")) // a pattern without errors
	for _, f := range temps {
		if err := os.Remove(f); err != nil {
			return nil, err
		}
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.txt"))
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		h, err := parseHand(data)
		if err == nil && h.ID+".txt" != filepath.Base(f) {
			err = errors.New("its id line does not match its name")
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		s.hands[h.ID] = h
	}
	return s, nil
}

func (s *server) handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", s.page)
	mux.HandleFunc("POST /handin", s.handIn)
	return mux
}

// page serves the room's page, made once per change of the room: however
// many load it at once, the server holds one copy.
func (s *server) page(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	version, hands, refused := s.version, slices.Collect(maps.Values(s.hands)), s.refused
	s.mu.Unlock()
	s.pageMu.Lock()
	if s.pageBytes == nil || s.pageVersion != version {
		v := view(hands, s.isStart)
		v.Refused = refused
		var out bytes.Buffer
		if err := writePage(&out, v, refreshSeconds, s.send); err != nil {
			s.pageMu.Unlock()
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		s.pageBytes, s.pageVersion = out.Bytes(), version
		s.pagesMade++
	}
	page := s.pageBytes
	s.pageMu.Unlock()
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.Write(page)
}

// handIn takes one hand-in, the file of scripts/handin, as the request's
// body, and keeps it under the participant's id: a second hand-in replaces
// the first. The first hand-in of an id sets its secret, which the
// Authorization header carries; later ones must carry the same.
func (s *server) handIn(w http.ResponseWriter, r *http.Request) {
	host := guard.HostOf(r.RemoteAddr)
	if r.ContentLength > maxBody {
		tooLarge(w)
		return
	}
	if why := s.addrs.startBody(host); why != "" {
		w.Header().Set("Retry-After", "1")
		w.Header().Set("Connection", "close") // its body is not read
		refuse(w, http.StatusServiceUnavailable, "%s", why)
		return
	}
	defer s.addrs.endBody(host)
	data, err := guard.ReadBody(http.MaxBytesReader(w, r.Body, maxBody), guard.BodyCapacity(r.ContentLength, maxBody))
	if _, over := errors.AsType[*http.MaxBytesError](err); over {
		tooLarge(w)
		return
	} else if errors.Is(err, os.ErrDeadlineExceeded) {
		w.Header().Set("Connection", "close")
		refuse(w, http.StatusRequestTimeout, "the hand-in did not arrive within %v", s.limits.readTime)
		return
	} else if err != nil {
		refuse(w, http.StatusBadRequest, "reading the hand-in: %v", err)
		return
	}
	h, err := parseHand(data)
	if err == nil && h.ID == "" {
		err = errors.New("no id line: send it with go run ./scripts/handin --to URL NAME")
	}
	if _, ok := h.values[secretKey]; err == nil && ok {
		err = fmt.Errorf("the line %s is the room's own: a hand-in does not carry it", secretKey)
	}
	if err != nil {
		refuse(w, http.StatusBadRequest, "not a hand-in: %v", err)
		return
	}
	secret, _ := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !secretPattern.MatchString(secret) {
		refuse(w, http.StatusForbidden, "the hand-in carries no participant secret (the Authorization header): "+
			"hand in with go run ./scripts/handin of this repository, which sends the one kept beside your id (git pull, if yours is older)")
		return
	}
	hash := fmt.Sprintf("%x", sha256.Sum256([]byte(secret)))
	s.mu.Lock()
	defer s.mu.Unlock()
	old, known := s.hands[h.ID]
	kept := old.values[secretKey]
	if known && kept != "" {
		if ok, wait, first := s.addrs.mayTrySecret(host); !ok {
			s.throttled++
			if first { // once per address while it is refused: a script that retries does not flood the log
				log.Printf("room: refusing the secrets of %s unread: it sent %d wrong ones in a minute, the most one address may",
					host, s.limits.wrongPerMinute)
			}
			w.Header().Set("Retry-After", fmt.Sprint(int(wait.Seconds())+1))
			refuse(w, http.StatusTooManyRequests, "your address sent %d wrong secrets in the last minute, the most one address may; retry in %d s",
				s.limits.wrongPerMinute, int(wait.Seconds())+1)
			return
		}
	}
	switch {
	case known && kept != "" && subtle.ConstantTimeCompare([]byte(kept), []byte(hash)) != 1:
		s.wrongSecrets++
		if n := s.addrs.wrongSecret(host); n == 1 || n%100 == 0 {
			log.Printf("room: a wrong secret for id %s from %s (%d from it since it was last quiet, %d in all)", h.ID, host, n, s.wrongSecrets)
		}
		refuse(w, http.StatusForbidden, "id %s was first handed in with another secret, so this hand-in may not replace it. "+
			"Hand in from the machine that made the id, or copy its participant-secret (beside participant-id, in its "+
			"configuration folder's userperf/) to this one; or, to hand in as a new participant, delete both files here", h.ID)
		return
	case !known && len(s.hands) >= s.limits.participants:
		refuse(w, http.StatusForbidden, "the room is full: it takes %d participants", s.limits.participants)
		return
	case !known:
		if ok, wait, first := s.addrs.mayMake(host); !ok {
			s.refused++
			s.version++
			if first { // once per address and minute: a script that retries does not flood the log
				log.Printf("room: refusing new participants from %s: it made %d in the last minute, the most one address may",
					host, s.limits.newPerMinute)
			}
			w.Header().Set("Retry-After", fmt.Sprint(int(wait.Seconds())+1))
			refuse(w, http.StatusTooManyRequests, "your address made %d new participants in the last minute, the most one address may: "+
				"each participant hands in from their own machine, whose configuration folder keeps their id; retry in %d s",
				s.limits.newPerMinute, int(wait.Seconds())+1)
			return
		}
	}
	if err := writeAtomically(filepath.Join(s.dir, h.ID+".txt"), append([]byte(secretKey+": "+hash+"\n"), data...)); err != nil {
		refuse(w, http.StatusInternalServerError, "keeping the hand-in: %v", err)
		return
	}
	h.values[secretKey] = hash
	s.hands[h.ID] = h
	s.version++
	fmt.Fprintf(w, "received %s's hand-in (%d stage%s, id %s)\n", h.Name, len(h.Stages), plural(len(h.Stages)), h.ID)
}

// secretPattern is what a participant secret looks like: scripts/handin
// makes 26 letters and digits (crypto/rand.Text).
var secretPattern = regexp.MustCompile(`^[A-Za-z0-9]{16,64}$`)

// tooLarge refuses a body over maxBody and closes the connection once the
// answer is sent: the server reads no more of it.
func tooLarge(w http.ResponseWriter) {
	w.Header().Set("Connection", "close")
	refuse(w, http.StatusRequestEntityTooLarge, "a hand-in is at most %d KiB: send the file of go run ./scripts/handin, nothing else", maxBody>>10)
}

// sendCommand is what a participant runs to hand in to the room at url.
func sendCommand(url string) string { return "go run ./scripts/handin --to " + url + ` "Your Name"` }

func refuse(w http.ResponseWriter, code int, format string, args ...any) {
	http.Error(w, "room: "+fmt.Sprintf(format, args...), code)
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// writeAtomically writes data to a temporary file beside path, then renames
// it: a crash leaves the old hand-in or the new one, never half of one.
func writeAtomically(path string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), ".handin-*")
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err = errors.Join(err, f.Sync(), f.Close()); err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}

// defaultPort is the room's port when --serve gives an address alone: not
// the stages' 8080, which the instructor's own stage may hold.
const defaultPort = "8070"

// listenAddress is where to listen for addr: a bare port or ":port" is on
// loopback, which only this machine reaches; the room needs the address it
// reaches this machine at.
func listenAddress(addr string) (string, error) {
	if !strings.Contains(addr, ":") {
		if net.ParseIP(addr) != nil || addr == "localhost" {
			addr += ":" + defaultPort
		} else {
			addr = ":" + addr
		}
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", fmt.Errorf("--serve %s: give HOST:PORT, such as 127.0.0.1:%s or this machine's address on the room's network", addr, defaultPort)
	}
	if port == "" {
		port = defaultPort
	}
	if host == "" || host == "localhost" {
		host = "127.0.0.1"
	}
	return net.JoinHostPort(host, port), nil
}

// roomAddresses are the commands that serve on this machine's addresses that another machine may
// reach (up, not loopback), each with its interface.
func roomAddresses(port string) []string {
	var list []string
	interfaces, _ := net.Interfaces() // none listed is said as such
	for _, in := range interfaces {
		if in.Flags&net.FlagUp == 0 || in.Flags&net.FlagLoopback != 0 {
			continue
		}
		addrs, _ := in.Addrs()
		for _, a := range addrs {
			if ip, ok := a.(*net.IPNet); ok && ip.IP.IsGlobalUnicast() {
				list = append(list, fmt.Sprintf("go run ./scripts/room --serve %s   (%s)", net.JoinHostPort(ip.IP.String(), port), in.Name))
			}
		}
	}
	return list
}

// serve runs the room's server at addr until SIGINT or SIGTERM (on
// Windows, os.Interrupt), then stops as run does.
func serve(addr, dir string, isStart func(string) bool) error {
	s, err := newServer(dir, isStart, roomLimits)
	if err != nil {
		return err
	}
	listen, err := listenAddress(addr)
	if err != nil {
		return err
	}
	listener, err := net.Listen("tcp", listen)
	if err != nil {
		return err
	}
	url := "http://" + listener.Addr().String()
	s.send = sendCommand(url)
	fmt.Printf("room: %d hand-in%s kept in %s\nroom: the page, for the projector: %s/\nroom: participants send: %s\n",
		len(s.hands), plural(len(s.hands)), dir, url, s.send)
	if ip := listener.Addr().(*net.TCPAddr).IP; ip.IsLoopback() {
		_, port, _ := net.SplitHostPort(listen)
		fmt.Println("room: only this machine can reach it. For the room, serve on this machine's address on the room's network:")
		list := roomAddresses(port)
		for _, a := range list {
			fmt.Printf("        %s\n", a)
		}
		if len(list) == 0 {
			fmt.Println("        (this machine lists none: is it on the network?)")
		}
	} else {
		fmt.Println("room: if a participant's handin cannot connect, this machine's firewall may block the port")
	}
	// The signals are the server's alone (the harness would exit at once),
	// from before the line that says Ctrl-C stops it.
	signal.Reset(os.Interrupt, syscall.SIGTERM)
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, os.Interrupt, syscall.SIGTERM)
	l := s.limits
	fmt.Printf("room: at most %d connections at once (%d per address, %d kept for addresses that hold none), "+
		"%d hand-ins read at once (%d per address), %d new participants and %d wrong secrets per address a minute, "+
		"%d participants; Ctrl-C stops it once the hand-ins being received are kept\n",
		l.conns, l.clientConns, l.connLimits().ConnReserve(), l.bodies, l.clientBodies, l.newPerMinute, l.wrongPerMinute, l.participants)
	return s.run(s.listen(listener), signals)
}

// listen wraps l in the API's guard listener with the room's bounds: one
// address holds at most its share of the connections, and the last eighth
// are kept for addresses that hold none, so that no few addresses lock the
// page or a participant out.
func (s *server) listen(l net.Listener) *guard.Listener {
	bounds := s.limits.connLimits()
	gl := guard.New(bounds, nil).Listen(l, bounds)
	gl.Answer = textAnswer
	return gl
}

// run serves on l until a signal arrives on signals. Then it stops
// accepting (the connections queued are answered 503), lets the hand-ins
// being received finish for up to drainTime, logs what it kept and
// refused, and returns nil.
func (s *server) run(l *guard.Listener, signals <-chan os.Signal) error {
	srv := s.httpServer()
	served := make(chan error, 1)
	go func() { served <- srv.Serve(l) }()
	var sig os.Signal
	select {
	case err := <-served:
		return err
	case sig = <-signals:
	}
	drain := s.drainTime()
	log.Printf("room: %v: finishing the hand-ins being received, for up to %v", sig, drain)
	ctx, cancel := context.WithTimeout(context.Background(), drain)
	defer cancel()
	cut := ""
	if err := srv.Shutdown(ctx); err != nil {
		srv.Close()
		cut = fmt.Sprintf(", and closed the connections still open after %v", drain)
	}
	<-served
	l.WaitRefusals()
	s.mu.Lock()
	defer s.mu.Unlock()
	log.Printf("room: stopped%s: %d hand-in%s kept in %s; since the start, %d wrong secret%s refused, %d more refused unread "+
		"for their address's rate, %d new participant%s refused; %d connection%s refused with 503 (%d of them queued at the signal), %d reset",
		cut, len(s.hands), plural(len(s.hands)), s.dir, s.wrongSecrets, plural(s.wrongSecrets), s.throttled,
		s.refused, plural(s.refused), l.Refused.Load(), plural(int(l.Refused.Load())), l.QueuedAnswered.Load(), l.Unanswered.Load())
	return nil
}

// drainTime is how long a shutdown waits for the hand-ins being received:
// as long as one may take to arrive, and a moment to keep it.
func (s *server) drainTime() time.Duration { return s.limits.readTime + 5*time.Second }

// httpServer is s bounded in time, as the API is: a client that sends
// slowly or never reads is let go, and a body that stalls frees its slot.
func (s *server) httpServer() *http.Server {
	return &http.Server{
		Handler:           s.handler(),
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       s.limits.readTime,
		WriteTimeout:      30 * time.Second,
		IdleTimeout:       60 * time.Second,
		MaxHeaderBytes:    16 << 10,
	}
}
