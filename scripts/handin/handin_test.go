package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
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

// TestParticipantID checks that the id is made once and kept, that another
// machine (another configuration folder) gets another, and that a damaged
// file is named rather than replaced silently.
func TestParticipantID(t *testing.T) {
	useConfigDir(t)
	first, err := participantID()
	if err != nil || !idPattern.MatchString(first) {
		t.Fatalf("participantID() = %q, %v", first, err)
	}
	if again, err := participantID(); again != first || err != nil {
		t.Errorf("the second call gave %q, %v; want the first id, %q", again, err, first)
	}
	useConfigDir(t)
	other, err := participantID()
	if err != nil || other == first {
		t.Errorf("another machine's id: %q, %v; want one other than %q", other, err, first)
	}
	config, _ := os.UserConfigDir()
	os.WriteFile(filepath.Join(config, "userperf", "participant-id"), []byte("not an id!\n"), 0o644)
	if id, err := participantID(); err == nil || !strings.Contains(err.Error(), "delete it") {
		t.Errorf("a damaged id file: %q, %v; want an error that says what to do", id, err)
	}
}

// TestOwnKeys checks that a check's lines without a stage name take the stage's.
func TestOwnKeys(t *testing.T) {
	got := ownKeys("ex1", "speedup-ex1-origin: 2.5\npredicted: 3x\nother-ex1: named\n")
	if want := "speedup-ex1-origin: 2.5\npredicted-ex1: 3x\nother-ex1: named\n"; got != want {
		t.Errorf("ownKeys = %q, want %q", got, want)
	}
}

// TestRoomLines checks that a prediction is handed in once, from speedups.txt, or from
// prediction.txt after a failed check, which writes no speedups.txt.
func TestRoomLines(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "prediction.txt"), []byte("3x\n"), 0o644)
	if got, want := roomLines(dir, "ex1"), "predicted-ex1: 3x\n"; got != want {
		t.Errorf("after a failed check: %q, want %q", got, want)
	}
	os.WriteFile(filepath.Join(dir, "speedups.txt"), []byte("speedup-ex1-origin: 2.5\npredicted: 3x\n"), 0o644)
	if got, want := roomLines(dir, "ex1"), "speedup-ex1-origin: 2.5\npredicted-ex1: 3x\n"; got != want {
		t.Errorf("after a passed check: %q, want %q", got, want)
	}
}

// TestSend checks that a hand-in reaches /handin as the request's body, and
// that a refusal comes back as an error with the server's words.
func TestSend(t *testing.T) {
	var got string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if r.Method != http.MethodPost || r.URL.Path != "/handin" {
			http.Error(w, "wrong place", http.StatusNotFound)
			return
		}
		if got = string(body); strings.Contains(got, "too big") {
			http.Error(w, "room: a hand-in is at most 256 KiB", http.StatusRequestEntityTooLarge)
			return
		}
		io.WriteString(w, "received\n")
	}))
	defer srv.Close()
	for _, url := range []string{srv.URL, srv.URL + "/", srv.URL + "/handin"} {
		if reply, err := send(url, "participant: Ada\n"); err != nil || reply != "received\n" || got != "participant: Ada\n" {
			t.Errorf("send(%s): %q, %v; the server got %q", url, reply, err, got)
		}
	}
	if _, err := send(srv.URL, "too big"); err == nil || !strings.Contains(err.Error(), "413") || !strings.Contains(err.Error(), "at most 256 KiB") {
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
