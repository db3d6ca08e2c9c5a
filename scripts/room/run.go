package main

import (
	"cmp"
	"context"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"example.com/userperf/common/api/guard"
)

// defaultPort is the room's port when --serve gives an address alone: not
// the stages' 8080, which the instructor's own stage may hold.
const defaultPort = "8070"

// serve runs the room's server at addr until SIGINT or SIGTERM, then stops as run does.
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
		len(s.handIns), plural(len(s.handIns)), dir, url, s.send)
	if listener.Addr().(*net.TCPAddr).IP.IsLoopback() {
		fmt.Println("room: only this machine can reach it. For the room, serve on this machine's address on the room's network:")
		_, port, _ := net.SplitHostPort(listen)
		printAddresses(port)
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
		l.conns, l.clientConns, l.connLimits().ConnReserve(), l.bodies, l.clientBodies, l.perMinute[newcomers], l.perMinute[wrongSecrets], l.participants)
	return s.run(s.listen(listener), signals)
}

// sendCommand is what a participant runs to hand in to the room at url.
func sendCommand(url string) string { return "go run ./scripts/handin --to " + url + ` "Your Name"` }

// listenAddress is where to listen for addr: a bare port or ":port" is on
// loopback, which only this machine reaches.
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
	if host == "" || host == "localhost" {
		host = "127.0.0.1"
	}
	return net.JoinHostPort(host, cmp.Or(port, defaultPort)), nil
}

// printAddresses prints the commands that serve on this machine's addresses
// that another machine may reach (up, not loopback), each with its interface.
func printAddresses(port string) {
	none := true
	interfaces, _ := net.Interfaces() // none listed is said as such
	for _, in := range interfaces {
		if in.Flags&net.FlagUp == 0 || in.Flags&net.FlagLoopback != 0 {
			continue
		}
		addrs, _ := in.Addrs()
		for _, a := range addrs {
			if ip, ok := a.(*net.IPNet); ok && ip.IP.IsGlobalUnicast() {
				fmt.Printf("        go run ./scripts/room --serve %s   (%s)\n", net.JoinHostPort(ip.IP.String(), port), in.Name)
				none = false
			}
		}
	}
	if none {
		fmt.Println("        (this machine lists none: is it on the network?)")
	}
}

// listen wraps l in the API's guard listener with the room's connection bounds.
func (s *server) listen(l net.Listener) *guard.Listener {
	bounds := s.limits.connLimits()
	gl := guard.New(bounds, nil).Listen(l, bounds)
	gl.Answer = func(msg string) (string, []byte) { return "text/plain; charset=utf-8", []byte("room: " + msg + "\n") }
	return gl
}

// run serves on l until a signal arrives on signals, then lets the hand-ins
// being received finish (queued connections are answered 503), logs what it
// kept and refused, and returns nil.
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
	drain := s.limits.readTime + 5*time.Second
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
		cut, len(s.handIns), plural(len(s.handIns)), s.dir, s.wrongSecrets, plural(s.wrongSecrets), s.rateRefused[wrongSecrets],
		s.rateRefused[newcomers], plural(s.rateRefused[newcomers]), l.Refused.Load(), plural(int(l.Refused.Load())), l.QueuedAnswered.Load(), l.Unanswered.Load())
	return nil
}

// httpServer is s bounded in time, as the API is: a client that sends
// slowly or never reads is let go, and a body that stalls frees its slot.
func (s *server) httpServer() *http.Server {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", s.servePage)
	mux.HandleFunc("POST /handin", s.takeHandIn)
	return &http.Server{
		Handler:           mux,
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       s.limits.readTime,
		WriteTimeout:      30 * time.Second,
		IdleTimeout:       60 * time.Second,
		MaxHeaderBytes:    16 << 10,
	}
}
