// Command handin puts a participant's workshop results in one file; the usage below says how.
package main

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"example.com/userperf/scripts/internal/harness"
	"example.com/userperf/scripts/internal/results"
	"example.com/userperf/scripts/internal/stages"
)

const usage = `
handin: your workshop results in one file, to hand to the instructor.

  go run ./scripts/handin "Ada Lovelace"

Each stage's verdict and speeds from your last go run ./scripts/check of it (run again if the stage
changed since), with your name and machine, in results/handin/<name>.txt: the file to send.
`

var validName = regexp.MustCompile(`^[[:alnum:]][[:alnum:] ._-]{0,39}$`)

func main() {
	c := harness.New("handin", usage)
	args := c.Parse()
	if len(args) != 1 || !validName.MatchString(args[0]) {
		c.Usage(`give your name, as the room should see it: go run ./scripts/handin "Ada Lovelace" (up to 40 letters, digits, spaces, dots, dashes)`)
	}
	who, mine := args[0], stages.Mine(".")
	if len(mine) == 0 {
		c.Usage("no stage made with go run ./scripts/new-stage here: nothing to hand in")
	}
	var verdicts, shown, speeds strings.Builder
	for _, s := range mine {
		checked := filepath.Join("results", "check", s)
		if changedSince(s, filepath.Join(checked, "verdict.txt")) {
			fmt.Printf("== %s: not checked since it last changed: go run ./scripts/check %s\n", s, s)
			harness.Go("run", "./scripts/check", s) // a failed check is handed in as failed
		}
		verdict, _ := os.ReadFile(filepath.Join(checked, "verdict.txt"))
		fmt.Fprintf(&verdicts, "verdict-%s: %s\n", s, strings.TrimSpace(string(verdict)))
		fmt.Fprintf(&shown, "  %s: %s\n", s, strings.TrimSpace(string(verdict)))
		files, _ := filepath.Glob(filepath.Join(checked, "speed-*.txt")) // none after a failed check
		for _, f := range files {
			measured, err := results.Read(f)
			c.Fatal(err)
			role := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(f), "speed-"), ".txt")
			fmt.Fprintf(&speeds, "exercise: %s\nrole: %s\nstage: %s\n", s, role, path.Base(measured.Config["pkg"]))
			data, _ := os.ReadFile(f)
			for _, line := range strings.SplitAfter(string(data), "\n") {
				if strings.HasPrefix(line, "Benchmark") {
					speeds.WriteString(line)
				}
			}
		}
	}
	file := "participant: " + who + "\n" + c.Header() + verdicts.String() + speeds.String()
	out := filepath.Join("results", "handin", strings.ReplaceAll(strings.ToLower(who), " ", "-")+".txt")
	c.Fatal(os.MkdirAll(filepath.Dir(out), 0o755))
	c.Fatal(os.WriteFile(out, []byte(file), 0o644))
	fmt.Printf("\n%swrote %s: send this one file to the instructor\n", shown.String(), out)
}

// changedSince reports whether a file of folder dir is newer than file, or there is no file.
func changedSince(dir, file string) bool {
	kept, err := os.Stat(file)
	files, _ := filepath.Glob(filepath.Join(dir, "*")) // a pattern without errors
	return err != nil || slices.ContainsFunc(files, func(f string) bool {
		info, err := os.Stat(f)
		return err == nil && info.ModTime().After(kept.ModTime())
	})
}
