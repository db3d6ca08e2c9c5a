// Command handin puts a participant's workshop results in one file; the usage below says how.
package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"example.com/userperf/scripts/internal/harness"
	"example.com/userperf/scripts/internal/stages"
)

const usage = `
handin: your workshop results in one file, to hand to the instructor.

  go run ./scripts/handin "Ada Lovelace"

Each stage's verdict and speeds from your last go run ./scripts/check of it, with your name and
machine, in results/handin/<name>.txt: the file to send. It names each stage changed since its check.
`

func main() {
	c := harness.New("handin", usage)
	args := c.Parse()
	if len(args) != 1 || !regexp.MustCompile(`^[[:alnum:]][[:alnum:] ._-]{0,39}$`).MatchString(args[0]) {
		c.Usage(`give your name, as the room should see it: go run ./scripts/handin "Ada Lovelace" (up to 40 letters, digits, spaces, dots, dashes)`)
	}
	mine := stages.Mine(".")
	if len(mine) == 0 {
		c.Usage("no stage made with go run ./scripts/new-stage here: nothing to hand in")
	}
	file, shown := "participant: "+args[0]+"\n"+c.Header(), ""
	for _, s := range mine {
		checked := filepath.Join("results", "check", s)
		kept, err := os.Stat(filepath.Join(checked, "verdict.txt"))
		changed, _ := filepath.Glob(filepath.Join(s, "*")) // a pattern without errors
		if err != nil || slices.ContainsFunc(changed, func(f string) bool {
			info, err := os.Stat(f)
			return err == nil && info.ModTime().After(kept.ModTime())
		}) {
			fmt.Printf("== %s changed since its last check, or has none: go run ./scripts/check %s, then hand in again\n", s, s)
		}
		verdict, _ := os.ReadFile(filepath.Join(checked, "verdict.txt"))
		speedups, _ := os.ReadFile(filepath.Join(checked, "speedups.txt")) // the room's; none after a failed check
		file += "verdict-" + s + ": " + strings.TrimSpace(string(verdict)) + "\n" + string(speedups)
		shown += "  " + s + ": " + strings.TrimSpace(string(verdict)) + "\n"
		files, _ := filepath.Glob(filepath.Join(checked, "speed-*.txt")) // the results, for the record
		for _, f := range files {
			data, err := os.ReadFile(f)
			c.Fatal(err)
			file += fmt.Sprintf("exercise: %s\nrole: %s\n%s", s, strings.TrimSuffix(strings.TrimPrefix(filepath.Base(f), "speed-"), ".txt"), data)
		}
	}
	out := filepath.Join("results", "handin", strings.ReplaceAll(strings.ToLower(args[0]), " ", "-")+".txt")
	c.Fatal(os.MkdirAll(filepath.Dir(out), 0o755))
	c.Fatal(os.WriteFile(out, []byte(file), 0o644))
	fmt.Printf("\n%swrote %s: send this one file to the instructor\n", shown, out)
}
