package main

import (
	"bufio"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// useConfigDir points os.UserConfigDir at a folder of the test's, on every system.
func useConfigDir(t *testing.T) string {
	dir := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", dir) // Linux and the BSDs
	t.Setenv("AppData", dir)         // Windows
	t.Setenv("HOME", dir)            // macOS: $HOME/Library/Application Support
	return dir
}

// TestParticipant checks that the id and the secret are made once and
// kept, the secret readable by its owner only, that another machine
// (another configuration folder) gets others, that an id kept before
// secrets gets one beside it, and that a damaged file is named rather than
// replaced silently.
func TestParticipant(t *testing.T) {
	useConfigDir(t)
	id, secret, err := participant()
	if err != nil || !idPattern.MatchString(id) || !secretPattern.MatchString(secret) {
		t.Fatalf("participant() = %q, %q, %v", id, secret, err)
	}
	if againID, againSecret, err := participant(); againID != id || againSecret != secret || err != nil {
		t.Errorf("the second call gave %q, %q, %v; want the first's", againID, againSecret, err)
	}
	config, _ := os.UserConfigDir()
	if info, err := os.Stat(filepath.Join(config, "userperf", "participant-secret")); err != nil || runtime.GOOS != "windows" && info.Mode().Perm() != 0o600 {
		t.Errorf("participant-secret: %v, %v; want it readable by its owner only", info.Mode(), err)
	}
	useConfigDir(t)
	otherID, otherSecret, err := participant()
	if err != nil || otherID == id || otherSecret == secret {
		t.Errorf("another machine's: %q, %q, %v; want others than %q, %q", otherID, otherSecret, err, id, secret)
	}
	config, _ = os.UserConfigDir()
	os.Remove(filepath.Join(config, "userperf", "participant-secret")) // as a handin before secrets left it
	if keptID, newSecret, err := participant(); keptID != otherID || !secretPattern.MatchString(newSecret) || newSecret == otherSecret || err != nil {
		t.Errorf("an id without a secret: %q, %q, %v; want the id kept and a new secret", keptID, newSecret, err)
	}
	for _, name := range []string{"participant-id", "participant-secret"} {
		useConfigDir(t)
		participant()
		config, _ := os.UserConfigDir()
		os.WriteFile(filepath.Join(config, "userperf", name), []byte("not one!\n"), 0o644)
		if id, secret, err := participant(); err == nil || !strings.Contains(err.Error(), "delete it") || !strings.Contains(err.Error(), name) {
			t.Errorf("a damaged %s: %q, %q, %v; want an error that names it and says what to do", name, id, secret, err)
		}
	}
}

// TestRoomLines checks that a prediction is handed in once, from speedups.txt, or from
// prediction.txt after a failed check, which writes no speedups.txt; and that a line
// without a stage name takes the stage's.
func TestRoomLines(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "prediction.txt"), []byte("3x\n"), 0o644)
	if got, want := roomLines(dir, "ex1"), "predicted-ex1: 3x\n"; got != want {
		t.Errorf("after a failed check: %q, want %q", got, want)
	}
	os.WriteFile(filepath.Join(dir, "speedups.txt"), []byte("speedup-ex1-origin: 2.5\npredicted: 3x\nother-ex1: named\n"), 0o644)
	if got, want := roomLines(dir, "ex1"), "speedup-ex1-origin: 2.5\npredicted-ex1: 3x\nother-ex1: named\n"; got != want {
		t.Errorf("after a passed check: %q, want %q", got, want)
	}
}

// TestSend checks that a hand-in reaches /handin as the request's body,
// with the secret; that a busy room is tried again when it says; and that a
// refusal comes back as an error with the server's words.
func TestSend(t *testing.T) {
	var got, secret string
	busy := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if r.Method != http.MethodPost || r.URL.Path != "/handin" {
			http.Error(w, "wrong place", http.StatusNotFound)
			return
		}
		got, secret = string(body), r.Header.Get("Authorization")
		switch {
		case strings.Contains(got, "too big"):
			http.Error(w, "room: a hand-in is at most 256 KiB", http.StatusRequestEntityTooLarge)
		case strings.Contains(got, "busy") && busy < 2:
			busy++
			w.Header().Set("Retry-After", "0")
			http.Error(w, "room: the room is reading 64 hand-ins at once", http.StatusServiceUnavailable)
		default:
			io.WriteString(w, "received\n")
		}
	}))
	defer srv.Close()
	for _, url := range []string{srv.URL, srv.URL + "/", srv.URL + "/handin"} {
		if reply, err := send(url, "participant: Ada\n", "SECRET"); err != nil || reply != "received\n" || got != "participant: Ada\n" || secret != "Bearer SECRET" {
			t.Errorf("send(%s): %q, %v; the server got %q with %q", url, reply, err, got, secret)
		}
	}
	if reply, err := send(srv.URL, "busy", "SECRET"); err != nil || reply != "received\n" || busy != 2 {
		t.Errorf("a room busy twice: %q, %v after %d busy answers; want it received at the third try", reply, err, busy)
	}
	_, err := send(srv.URL, "too big", "SECRET")
	if r := (*refusal)(nil); !errors.As(err, &r) || r.code != http.StatusRequestEntityTooLarge || !strings.Contains(err.Error(), "at most 256 KiB") {
		t.Errorf("a refused hand-in: %v", err)
	}
}

func TestNames(t *testing.T) {
	for name, want := range map[string]bool{"Ada Lovelace": true, "김민준": true, "Ken <script>": true, "Ada/Lovelace": false, `a\b`: false,
		"": false, "  ": false, strings.Repeat("a", 41): false, "tab\there": false} {
		if validName(name) != want {
			t.Errorf("validName(%q) = %v", name, !want)
		}
	}
	if got := fileName("Ken <script> 김"); got != "ken--script--김" {
		t.Errorf("fileName = %q", got)
	}
}

// TestChangedAfter checks that a stage edited after its check is told from
// one that was not, which the hand-in then marks for the room.
func TestChangedAfter(t *testing.T) {
	dir := t.TempDir()
	stage, verdict := filepath.Join(dir, "ex1"), filepath.Join(dir, "verdict.txt")
	os.Mkdir(stage, 0o755)
	os.WriteFile(filepath.Join(stage, "store.go"), []byte("package main\n"), 0o644)
	os.WriteFile(verdict, []byte("passed\n"), 0o644)
	checked := time.Now().Add(-time.Hour)
	os.Chtimes(filepath.Join(stage, "store.go"), checked.Add(-time.Minute), checked.Add(-time.Minute))
	os.Chtimes(verdict, checked, checked)
	if changed, err := changedAfter(stage, verdict); changed || err != nil {
		t.Errorf("a stage untouched since its check: changed %v, %v", changed, err)
	}
	os.Chtimes(filepath.Join(stage, "store.go"), checked.Add(time.Minute), checked.Add(time.Minute))
	if changed, err := changedAfter(stage, verdict); !changed || err != nil {
		t.Errorf("a stage edited after its check: changed %v, %v", changed, err)
	}
	if _, err := changedAfter(stage, filepath.Join(dir, "none.txt")); err == nil {
		t.Error("a stage never checked: no error")
	}
}

// The exercises and the named quests go without a question; any other stage is asked about first,
// and goes only on a yes: no answer, as from a script, is a no.
func TestChosen(t *testing.T) {
	mine := []string{"ex1", "bug1", "mycache", "try2", "ex3b"}
	for answers, want := range map[string]string{"": "ex1 mycache", "y\nn\n": "ex1 bug1 mycache", "n\nyes\nY\n": "ex1 mycache try2 ex3b"} {
		got := strings.Join(chosen(mine, bufio.NewReader(strings.NewReader(answers))), " ")
		if got != want {
			t.Errorf("answers %q: chose %q, want %q", answers, got, want)
		}
	}
}
