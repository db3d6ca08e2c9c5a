package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
)

// The server's bounds: a hand-in file is a few kilobytes (its verdicts and
// benchmark lines), and a room a few dozen people.
const (
	maxBody         = 256 << 10
	maxParticipants = 200
	refreshSeconds  = 5
)

// server keeps the room's hand-ins, one file per participant's id in dir,
// so that a restart loses none, and serves the room's page.
type server struct {
	dir     string
	isStart func(stage string) bool
	send    string // the command that hands in here, shown on the page
	max     int    // participants
	mu      sync.Mutex
	hands   map[string]hand // by id
}

// newServer loads the hand-ins that dir holds already.
func newServer(dir string, isStart func(string) bool) (*server, error) {
	s := &server{dir: dir, isStart: isStart, max: maxParticipants, hands: map[string]hand{}}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.txt")) // a pattern without errors
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
			return nil, fmt.Errorf("%s: %v", f, err)
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

func (s *server) page(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	v := view(slices.Collect(maps.Values(s.hands)), s.isStart)
	s.mu.Unlock()
	var out bytes.Buffer
	if err := writePage(&out, v, refreshSeconds, s.send); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.Write(out.Bytes())
}

// handIn takes one hand-in, the file of scripts/handin, as the request's
// body, and keeps it under the participant's id: a second hand-in replaces
// the first.
func (s *server) handIn(w http.ResponseWriter, r *http.Request) {
	data, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
	if maxErr := (*http.MaxBytesError)(nil); errors.As(err, &maxErr) {
		refuse(w, http.StatusRequestEntityTooLarge, "a hand-in is at most %d KiB: send the file of go run ./scripts/handin, nothing else", maxBody>>10)
		return
	} else if err != nil {
		refuse(w, http.StatusBadRequest, "reading the hand-in: %v", err)
		return
	}
	h, err := parseHand(data)
	if err == nil && h.ID == "" {
		err = errors.New("no id line: send it with go run ./scripts/handin --to URL NAME")
	}
	if err != nil {
		refuse(w, http.StatusBadRequest, "not a hand-in: %v", err)
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, known := s.hands[h.ID]; !known && len(s.hands) >= s.max {
		refuse(w, http.StatusForbidden, "the room is full: it takes %d participants", s.max)
		return
	}
	if err := writeAtomically(filepath.Join(s.dir, h.ID+".txt"), data); err != nil {
		refuse(w, http.StatusInternalServerError, "keeping the hand-in: %v", err)
		return
	}
	s.hands[h.ID] = h
	fmt.Fprintf(w, "received %s's hand-in (%d stage%s, id %s)\n", h.Name, len(h.Stages), plural(len(h.Stages)), h.ID)
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

// listenAddress is where to listen for addr: a bare port or ":port" is on
// loopback, which only this machine reaches; the room needs the address it
// reaches this machine at.
func listenAddress(addr string) (string, error) {
	if !strings.Contains(addr, ":") {
		addr = ":" + addr
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", fmt.Errorf("--serve %s: give HOST:PORT, such as 127.0.0.1:8080 or this machine's address on the room's network", addr)
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

// serve runs the room's server at addr until the process ends.
func serve(addr, dir string, isStart func(string) bool) error {
	s, err := newServer(dir, isStart)
	if err != nil {
		return err
	}
	listen, err := listenAddress(addr)
	if err != nil {
		return err
	}
	l, err := net.Listen("tcp", listen)
	if err != nil {
		return err
	}
	url := "http://" + l.Addr().String()
	s.send = sendCommand(url)
	fmt.Printf("room: %d hand-in%s kept in %s\nroom: the page, for the projector: %s/\nroom: participants send: %s\n",
		len(s.hands), plural(len(s.hands)), dir, url, s.send)
	if ip := l.Addr().(*net.TCPAddr).IP; ip.IsLoopback() {
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
		fmt.Println("room: if a participant's handin cannot connect, this machine's firewall may block the port; Ctrl-C stops the server")
	}
	return s.httpServer().Serve(l)
}

// httpServer is s bounded in time, as the API is: a client that sends slowly or never reads is let go.
func (s *server) httpServer() *http.Server {
	return &http.Server{
		Handler:           s.handler(),
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      30 * time.Second,
		IdleTimeout:       60 * time.Second,
		MaxHeaderBytes:    16 << 10,
	}
}
