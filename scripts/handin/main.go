// Command handin puts a participant's workshop results in one file, and
// sends it to the room's server or leaves it to hand in another way.
//
// Usage:
//
//	go run ./scripts/handin [--to http://ADDRESS:PORT] NAME
//
// The file holds, for each stage you checked, the verdict, speeds and
// prediction of your last go run ./scripts/check of it, with NAME, your
// machine and your participant id, and names each stage changed since its
// check; it is written to results/handin/NAME.txt. The id, made at your
// first hand-in and kept in your user configuration folder
// (userperf/participant-id), tells you from anyone else of the same name:
// a second hand-in replaces the first. The secret kept beside it
// (participant-secret) goes with every hand-in to the room, which takes an
// id's hand-ins only with the secret of its first: to hand in from another
// machine, copy both files there.
//
// The flag is:
//
//	--to URL
//		Send the file to the room's server (go run ./scripts/room --serve) at URL.
//
// # Examples
//
//	go run ./scripts/handin --to http://192.168.1.20:8080 "Ada Lovelace"
//	go run ./scripts/handin "Ada Lovelace"
package main

import (
	"bufio"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"example.com/userperf/scripts/internal/harness"
	"example.com/userperf/scripts/internal/stages"
)

func main() {
	c := harness.New("handin")
	to := c.Flags.String("to", "", "")
	args := c.Parse()
	if len(args) != 1 || !validName(args[0]) {
		c.Usage(`give your name, as the room should see it: go run ./scripts/handin "Ada Lovelace" (up to 40 characters, no slash)`)
	}
	name := strings.TrimSpace(args[0])
	mine := chosen(stages.Mine("."), bufio.NewReader(os.Stdin))
	if len(mine) == 0 {
		c.Usage("no stage to hand in: make the exercises with go run ./scripts/new-stage, under the names WORKSHOP.md gives (%s)", strings.Join(named, ", "))
	}
	handIn, shown := "participant: "+name+"\n", ""
	id, secret, err := participant()
	if err == nil {
		handIn += "id: " + id + "\n"
	} else if *to != "" {
		c.Fatal(err) // the room's server keys on the id
	} else {
		fmt.Printf("handin: %v; the file goes without it, and the room tells you from others of your name by the file alone\n", err)
	}
	handIn += c.Header()
	for _, s := range mine {
		checked := filepath.Join("results", "check", s)
		stale, err := changedAfter(s, filepath.Join(checked, "verdict.txt"))
		if err != nil || stale {
			fmt.Printf("== %s changed since its last check, or has none: go run ./scripts/check %s, then hand in again\n", s, s)
		}
		data, _ := os.ReadFile(filepath.Join(checked, "verdict.txt"))
		verdict := strings.TrimSpace(string(data))
		// A failed check's verdict points at the check's output above it, which a hand-in does not hold.
		if v, ok := strings.CutSuffix(verdict, ", see above"); ok {
			verdict = v + " (its output: results/check/" + s + "/ on the participant's machine)"
		}
		handIn += "origin-" + s + ": " + stages.Origin(".", s) + "\nverdict-" + s + ": " + verdict + "\n" + roomLines(checked, s)
		if stale { // the room marks the verdict as maybe not the stage's
			handIn += "changed-" + s + ": after its check\n"
		}
		shown += "  " + s + ": " + verdict + "\n"
		files, _ := filepath.Glob(filepath.Join(checked, "speed-*.txt")) // the results, for the record
		for _, f := range files {
			data, err := os.ReadFile(f)
			c.Fatal(err)
			handIn += fmt.Sprintf("exercise: %s\nrole: %s\n%s", s, strings.TrimSuffix(strings.TrimPrefix(filepath.Base(f), "speed-"), ".txt"), data)
		}
	}
	fmt.Print("\n" + shown)
	if *to != "" {
		reply, err := send(*to, handIn, secret)
		if r, ok := errors.AsType[*refusal](err); ok && r.code == http.StatusForbidden {
			config, _ := os.UserConfigDir() // participant found it
			err = fmt.Errorf("%w\n(this machine's id and secret: %s)", err, filepath.Join(config, "userperf"))
		}
		c.Fatal(err)
		fmt.Printf("sent to %s: %s", *to, reply)
		return
	}
	out := filepath.Join("results", "handin", fileName(name)+".txt")
	c.Fatal(os.MkdirAll(filepath.Dir(out), 0o755))
	c.Fatal(os.WriteFile(out, []byte(handIn), 0o644))
	fmt.Printf("wrote %s: send this one file to the instructor\n", out)
}

// named are the names WORKSHOP.md gives the exercises and the side quests, the room's columns.
var named = []string{"ex1", "ex2", "ex3", "ex4", "ex5", "mycache", "mylog", "mypgo"}

// chosen is the stages of mine to hand in: those of the names in named, and each other one (a
// try-out, a copy with a bug) only when answer, read first, says yes; no answer is a no.
func chosen(mine []string, answer *bufio.Reader) (handed []string) {
	for _, s := range mine {
		if slices.Contains(named, s) {
			handed = append(handed, s)
			continue
		}
		fmt.Printf("hand in %s too? Not an exercise's name, so the room shows it as a column of its own [y/N] ", s)
		line, err := answer.ReadString('\n')
		if yes := strings.ToLower(strings.TrimSpace(line)); yes == "y" || yes == "yes" {
			handed = append(handed, s)
		} else if err != nil {
			fmt.Println("(no answer: no)")
		}
	}
	return handed
}

// changedAfter reports whether a file of the stage in dir changed after
// the check's verdict was kept; an error if there is no verdict.
func changedAfter(dir, verdict string) (bool, error) {
	kept, err := os.Stat(verdict)
	if err != nil {
		return false, err
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*")) // a pattern without errors
	return slices.ContainsFunc(files, func(f string) bool {
		info, err := os.Stat(f)
		return err == nil && info.ModTime().After(kept.ModTime())
	}), nil
}

// roomLines are the lines of the check of stage in dir that the room reads:
// speedups.txt's (none after a failed check), and the prediction, which a
// failed check keeps only in prediction.txt. A key that names no stage
// ("predicted: 3x") takes the stage's name, as every line of a hand-in has.
func roomLines(dir, stage string) string {
	speedups, _ := os.ReadFile(filepath.Join(dir, "speedups.txt")) // none is said by the verdict
	lines := string(speedups)
	if predicted, err := os.ReadFile(filepath.Join(dir, "prediction.txt")); err == nil && !strings.Contains("\n"+lines, "\npredicted: ") {
		lines += "predicted: " + strings.TrimSpace(string(predicted)) + "\n"
	}
	var out strings.Builder
	for line := range strings.Lines(lines) {
		if key, value, ok := strings.Cut(strings.TrimRight(line, "\r\n"), ": "); ok && !strings.HasPrefix(key, "speedup-") && !strings.HasSuffix(key, "-"+stage) {
			line = key + "-" + stage + ": " + value + "\n"
		}
		out.WriteString(line)
	}
	return out.String()
}

// validName accepts what a person types as their name, in any script: up
// to 40 printable characters, and no slash, which would read as a path.
func validName(name string) bool {
	name = strings.TrimSpace(name)
	return name != "" && utf8.RuneCountInString(name) <= 40 &&
		!strings.ContainsFunc(name, func(r rune) bool { return !unicode.IsPrint(r) || r == '/' || r == '\\' })
}

// fileName is name as a file's name on any system: letters and digits, the rest as dashes.
func fileName(name string) string {
	return strings.Trim(strings.Map(func(r rune) rune {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return unicode.ToLower(r)
		}
		return '-'
	}, name), "-")
}

var (
	idPattern     = regexp.MustCompile(`^[a-z0-9]{8,32}$`)
	secretPattern = regexp.MustCompile(`^[A-Za-z0-9]{16,64}$`)
)

// participant returns this machine's participant id and secret, made at
// the first call and kept in the user's configuration folder. The secret is
// made here, not by the room, so that it is kept before it is ever sent: a
// hand-in whose answer is lost is sent again with the same secret.
func participant() (id, secret string, err error) {
	config, err := os.UserConfigDir()
	if err != nil {
		return "", "", fmt.Errorf("no configuration folder to keep your participant id in: %w", err)
	}
	dir := filepath.Join(config, "userperf")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", "", err
	}
	id, err = keep(filepath.Join(dir, "participant-id"), idPattern, 0o644, func() string { return strings.ToLower(rand.Text()[:12]) })
	if err != nil {
		return "", "", err
	}
	secret, err = keep(filepath.Join(dir, "participant-secret"), secretPattern, 0o600, rand.Text)
	return id, secret, err
}

// keep returns what the file at path holds, or, if there is none, makes it
// and writes it there with permissions perm.
func keep(path string, valid *regexp.Regexp, perm os.FileMode, made func() string) (string, error) {
	data, err := os.ReadFile(path)
	if v := strings.TrimSpace(string(data)); err == nil && valid.MatchString(v) {
		return v, nil
	} else if err == nil {
		return "", fmt.Errorf("%s holds %q, not what handin made: delete it, and a new one is made", path, v)
	} else if !errors.Is(err, os.ErrNotExist) {
		return "", err
	}
	v := made()
	return v, os.WriteFile(path, []byte(v+"\n"), perm)
}

// refusal is the room's refusal of a hand-in: its status and its words.
type refusal struct {
	url, status string
	code        int
	reply       string
}

func (r *refusal) Error() string {
	return fmt.Sprintf("%s refused the hand-in: %s %s", r.url, r.status, r.reply)
}

// send posts the hand-in to the room's server at url, with the
// participant's secret, and returns its reply. While the room answers
// that it is busy (503), it sends again when the room says, five times at most.
func send(url, handIn, secret string) (string, error) {
	url = strings.TrimSuffix(strings.TrimSuffix(url, "/"), "/handin") + "/handin"
	client := &http.Client{Timeout: 30 * time.Second}
	for attempt := 1; ; attempt++ {
		req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(handIn))
		if err != nil {
			return "", err
		}
		req.Header.Set("Content-Type", "text/plain; charset=utf-8")
		req.Header.Set("Authorization", "Bearer "+secret)
		resp, err := client.Do(req)
		if err != nil {
			return "", fmt.Errorf("sending to %s: %w (is the room's server running, at that address?)", url, err)
		}
		reply, err := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
		resp.Body.Close()
		if err != nil {
			return "", err
		}
		if resp.StatusCode == http.StatusOK {
			return string(reply), nil
		}
		refused := &refusal{url, resp.Status, resp.StatusCode, strings.TrimSpace(string(reply))}
		wait, err := strconv.Atoi(resp.Header.Get("Retry-After"))
		if resp.StatusCode != http.StatusServiceUnavailable || err != nil || attempt == 5 {
			return "", refused
		}
		fmt.Printf("handin: %s; sending again in %d s\n", refused.reply, wait)
		time.Sleep(time.Duration(min(max(wait, 0), 10)) * time.Second)
	}
}
