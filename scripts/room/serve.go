package main

import (
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"log"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
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

// secretPattern is what a participant secret looks like: scripts/handin
// makes 26 letters and digits (crypto/rand.Text).
var secretPattern = regexp.MustCompile(`^[A-Za-z0-9]{16,64}$`)

// server keeps the room's hand-ins, a file per participant's id in dir, and serves the page.
type server struct {
	dir     string
	isStart func(stage string) bool
	send    string // the command that hands in here, shown on the page
	limits  limits
	now     func() time.Time // the rates' clock; tests stop it

	mu           sync.Mutex
	handIns      map[string]handIn   // by id
	addrs        map[string]*address // by host
	bodies       int                 // being read, from all addresses
	rateRefused  [2]int              // hand-ins refused for their address's rate: new participants, and secrets unread
	wrongSecrets int                 // hand-ins refused for a secret that is not their id's
	page         []byte              // made at the first load since handIns or the newcomers refused changed, shared by every load
}

// newServer loads the hand-ins in dir.
func newServer(dir string, isStart func(string) bool, l limits) (*server, error) {
	s := &server{dir: dir, isStart: isStart, limits: l, now: time.Now, handIns: map[string]handIn{}, addrs: map[string]*address{}}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.txt"))
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		h, err := parseHandIn(data)
		if err == nil && h.ID+".txt" != filepath.Base(f) {
			err = errors.New("its id line does not match its name")
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		s.handIns[h.ID] = h
	}
	return s, nil
}

// servePage serves the room's page. It is made under s.mu, which a hand-in
// waits for the few milliseconds that takes, once per change of the room.
func (s *server) servePage(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	if s.page == nil {
		v := view(slices.Collect(maps.Values(s.handIns)), s.isStart)
		v.Refused = s.rateRefused[newcomers]
		page, err := makePage(v, refreshSeconds, s.send)
		if err != nil {
			s.mu.Unlock()
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		s.page = page
	}
	page := s.page
	s.mu.Unlock()
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.Write(page)
}

// takeHandIn keeps the hand-in in the request's body under its id,
// replacing the id's last. The first hand-in of an id sets its secret (the
// Authorization header), which later ones must carry.
func (s *server) takeHandIn(w http.ResponseWriter, r *http.Request) {
	host := guard.HostOf(r.RemoteAddr)
	data, ok := s.readHandIn(w, r, host)
	if !ok {
		return
	}
	h, err := parseHandIn(data)
	if err == nil && h.ID == "" {
		err = errors.New("no id line: send it with go run ./scripts/handin --to URL NAME")
	}
	if _, ok := h.values[secretKey]; err == nil && ok {
		err = fmt.Errorf("the line %s is the room's own: a hand-in does not carry it", secretKey)
	}
	if err != nil {
		httpError(w, http.StatusBadRequest, "not a hand-in: %v", err)
		return
	}
	secret, _ := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !secretPattern.MatchString(secret) {
		httpError(w, http.StatusForbidden, "the hand-in carries no participant secret (the Authorization header): "+
			"hand in with go run ./scripts/handin of this repository, which sends the one kept beside your id (git pull, if yours is older)")
		return
	}
	hash := fmt.Sprintf("%x", sha256.Sum256([]byte(secret)))
	s.mu.Lock()
	defer s.mu.Unlock()
	old, known := s.handIns[h.ID]
	switch kept := old.values[secretKey]; {
	case kept != "":
		if s.overRate(w, host, wrongSecrets) {
			return
		}
		if subtle.ConstantTimeCompare([]byte(kept), []byte(hash)) != 1 {
			s.wrongSecrets++
			if n := s.spend(host, wrongSecrets); n == 1 || n%100 == 0 {
				log.Printf("room: a wrong secret for id %s from %s (%d from it since it was last quiet, %d in all)", h.ID, host, n, s.wrongSecrets)
			}
			httpError(w, http.StatusForbidden, "id %s was first handed in with another secret, so this hand-in may not replace it. "+
				"Hand in from the machine that made the id, or copy its participant-secret (beside participant-id, in its "+
				"configuration folder's userperf/) to this one; or, to hand in as a new participant, delete both files here", h.ID)
			return
		}
	case !known && len(s.handIns) >= s.limits.participants:
		httpError(w, http.StatusForbidden, "the room is full: it takes %d participants", s.limits.participants)
		return
	case !known:
		if s.overRate(w, host, newcomers) {
			s.page = nil // it counts those refused
			return
		}
		s.spend(host, newcomers)
	}
	if err := writeAtomically(filepath.Join(s.dir, h.ID+".txt"), append([]byte(secretKey+": "+hash+"\n"), data...)); err != nil {
		httpError(w, http.StatusInternalServerError, "keeping the hand-in: %v", err)
		return
	}
	h.values[secretKey] = hash
	s.handIns[h.ID] = h
	s.page = nil
	fmt.Fprintf(w, "received %s's hand-in (%d stage%s, id %s)\n", h.Name, len(h.Stages), plural(len(h.Stages)), h.ID)
}

// readHandIn reads the request's body, within the room's bounds on bodies
// from host and in all, or refuses it and returns false.
func (s *server) readHandIn(w http.ResponseWriter, r *http.Request, host string) ([]byte, bool) {
	if r.ContentLength > maxBody {
		tooLarge(w)
		return nil, false
	}
	if why := s.startBody(host); why != "" {
		w.Header().Set("Retry-After", "1")
		w.Header().Set("Connection", "close") // its body is not read
		httpError(w, http.StatusServiceUnavailable, "%s", why)
		return nil, false
	}
	defer s.endBody(host)
	data, err := guard.ReadBody(http.MaxBytesReader(w, r.Body, maxBody), guard.BodyCapacity(r.ContentLength, maxBody))
	if _, over := errors.AsType[*http.MaxBytesError](err); over {
		tooLarge(w)
	} else if errors.Is(err, os.ErrDeadlineExceeded) {
		w.Header().Set("Connection", "close")
		httpError(w, http.StatusRequestTimeout, "the hand-in did not arrive within %v", s.limits.readTime)
	} else if err != nil {
		httpError(w, http.StatusBadRequest, "reading the hand-in: %v", err)
	}
	return data, err == nil
}

// tooLarge refuses a body over maxBody and closes the connection once the
// answer is sent: the server reads no more of it.
func tooLarge(w http.ResponseWriter) {
	w.Header().Set("Connection", "close")
	httpError(w, http.StatusRequestEntityTooLarge, "a hand-in is at most %d KiB: send the file of go run ./scripts/handin, nothing else", maxBody>>10)
}

// httpError answers one of the room's own errors, its message prefixed "room: ".
func httpError(w http.ResponseWriter, code int, format string, args ...any) {
	http.Error(w, "room: "+fmt.Sprintf(format, args...), code)
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// writeAtomically writes data beside path, then renames it: a crash leaves
// the old hand-in or the new one, never half of one, and the next write to
// path replaces what it left. The caller holds s.mu: one writer at a time.
func writeAtomically(path string, data []byte) error {
	f, err := os.OpenFile(path+".new", os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
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
