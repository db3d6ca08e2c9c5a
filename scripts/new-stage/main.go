// Command new-stage makes a stage of your own, a copy of an existing one to
// change and check, which git never sees.
//
// Usage:
//
//	go run ./scripts/new-stage [--from STAGE] NAME
//	go run ./scripts/new-stage --list
//	go run ./scripts/new-stage --remove NAME
//
// NAME is 1 to 40 lowercase letters, digits and dashes, starting with a
// letter. The copy leaves out the origin's README.md and the tests that
// the exercise changes (those of the exercise's reference that differ or
// are missing), records its origin in its go.mod (the "// origin:" line
// that scripts/check reads), passes go vet, and is listed in local.work, a
// copy of go.work that git ignores, as it ignores the new folder. Every run
// writes local.work and none removes it, so export GOWORK=$PWD/local.work
// (PowerShell: $env:GOWORK = "$PWD\local.work") keeps working once set; the
// commands of scripts/ find local.work without it. An error or Ctrl-C undoes
// everything. After a git pull that changed go.work, run --list.
//
// If a go command says "go: reading go.work: open local.work: no such file
// or directory", GOWORK names local.work before this command wrote it:
// GOWORK= go run ./scripts/new-stage --list writes it.
//
// The flags are:
//
//	--from STAGE
//		The stage to copy (default stage0-linear), a folder of go.work.
//	--list
//		The stages this command made, and local.work written again.
//	--remove
//		Delete the stage NAME and undo what made it.
//
// # Examples
//
//	go run ./scripts/new-stage ex3 --from stage2-noclone
//	go run ./scripts/new-stage mycache --from workshop/quest6-cache
//	go run ./scripts/new-stage --remove ex3
package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"example.com/userperf/scripts/internal/harness"
	"example.com/userperf/scripts/internal/stages"
)

var (
	c         = harness.New("new-stage")
	validName = regexp.MustCompile(`^[a-z]([a-z0-9-]{0,38}[a-z0-9])?$`)
	reserved  = regexp.MustCompile(`^(floor|common|scripts|peers|workshop|solutions|results|docs|bin|handins|stage[0-9].*|v[0-9]+)$`) // vN: Go reads example.com/userperf/vN as a major version
	mainName  = regexp.MustCompile(`api\.Main\("([^"]*)"`)
)

func main() {
	origin := c.Flags.String("from", "stage0-linear", "")
	remove, list := c.Flags.Bool("remove", false, ""), c.Flags.Bool("list", false, "")
	name := strings.Join(c.Parse(), " ") // more than one is not a valid name
	if *list {
		syncWorkspace()
		for _, d := range stages.Mine(".") {
			fmt.Printf("  %s from %s\n", d, stages.Origin(".", d))
		}
		if len(stages.Mine(".")) == 0 {
			fmt.Println("no stage made by new-stage here")
		}
		return
	} else if *remove {
		if !slices.Contains(stages.Mine("."), name) {
			c.Usage("--remove %q: not a stage made by new-stage (a folder whose go.mod has an origin line); nothing removed", name)
		}
		c.Fatal(os.RemoveAll(name))
		syncWorkspace()
		fmt.Printf("removed %s: its folder, and its line in local.work (which stays, so that GOWORK=$PWD/local.work still works)\n", name)
		return
	}

	// The new stage, a copy of the stage in folder from.
	from := strings.TrimPrefix(filepath.ToSlash(*origin), "./")
	if name == "" {
		c.Usage("name the new stage: go run ./scripts/new-stage NAME [--from STAGE] (--help for more)")
	} else if !validName.MatchString(name) || reserved.MatchString(name) {
		c.Usage("'%s' is not a valid name: use 1 to 40 lowercase letters, digits and dashes, starting with a letter, not stageN, vN (a module's major version to Go) or another name the repository uses", name)
	} else if _, err := os.Lstat(name); err == nil {
		c.Usage("%s already exists; pick another name, or --remove %s if this command made it", name, name)
	}
	// A name that another stage of the workspace has fails stages.Against below, which undoes the copy.
	mainGo, _ := os.ReadFile(filepath.Join(from, "main.go"))
	oldMain := mainName.FindStringSubmatch(string(mainGo))
	if oldMain == nil {
		c.Usage("--from %s: not a stage's folder, such as stage1-index or workshop/quest6-cache (no main.go with api.Main(\"NAME\", ...))", from)
	}

	c.Fatal(os.Mkdir(name, 0o755))
	made := false
	c.Cleanup(func() {
		if !made {
			fmt.Fprintf(os.Stderr, "new-stage: %s not made; undoing\n", name)
			os.RemoveAll(name)
			syncWorkspace()
		}
	})
	c.Fatal(os.CopyFS(name, os.DirFS(from)))
	if _, err := os.Stat(filepath.Join(name, "stage_test.go")); err != nil { // a side quest's bug has no shared suites
		c.Fatal(copyFile(filepath.Join("stage0-linear", "stage_test.go"), filepath.Join(name, "stage_test.go")))
	}
	c.Fatal(os.WriteFile(filepath.Join(name, ".gitignore"), []byte("# Made by scripts/new-stage: git ignores this whole folder, this file included.\n*\n"), 0o644))
	os.Remove(filepath.Join(name, "README.md")) // the origin's notes (a solution's README.md), if any: not the copy's

	// The module and its origin; the replace of common is one level up now.
	goMod := filepath.Join(name, "go.mod")
	c.Fatal(harness.Go("mod", "edit", "-module", "example.com/userperf/"+name, "-replace", "example.com/userperf/common=../common", goMod))
	mod, err := os.ReadFile(goMod)
	c.Fatal(err)
	mod = regexp.MustCompile(`(?m)^// origin: .*\n`).ReplaceAll(mod, nil)
	c.Fatal(os.WriteFile(goMod, fmt.Appendf(bytes.TrimRight(mod, "\n"), "\n\n// origin: %s (the stage this module started from; scripts/check reads this line)\n", from), 0o644))
	// The stage's name is in main.go alone: no stage imports its own module.
	rename := strings.NewReplacer(`api.Main("`+oldMain[1]+`"`, `api.Main("`+name+`"`, "// Command "+oldMain[1]+" ", "// Command "+name+" ")
	c.Fatal(os.WriteFile(filepath.Join(name, "main.go"), []byte(rename.Replace(string(mainGo))), 0o644))

	syncWorkspace()
	_, reference, err := stages.Against(c.Root, name, "")
	c.Fatal(err)
	// Tests that the reference lacks or changed test what the exercise changes: they would fail a right answer.
	// A learner's own tests, in a copy of their stage, are theirs to keep.
	if found, err := stages.Find(c.Root, reference); err == nil {
		project := projectStart(from)
		tests, _ := filepath.Glob(filepath.Join(from, "*_test.go"))
		for _, t := range tests {
			t = filepath.Base(t)
			mine, _ := os.ReadFile(filepath.Join(from, t))
			theirs, err := os.ReadFile(filepath.Join(found[0].Dir, t))
			if project != from && t != "stage_test.go" && !sameFile(mine, filepath.Join(project, t)) {
				fmt.Printf("   kept %s: your own test (%s has none, or another)\n", t, project)
			} else if t != "stage_test.go" && (err != nil || !bytes.Equal(mine, theirs)) {
				c.Fatal(os.Remove(filepath.Join(name, t)))
				why := reference + "'s differs, since it tests what the exercise changes"
				if err != nil {
					why = reference + " has no such test"
				}
				fmt.Printf("   left out %s: %s\n", t, why)
			}
		}
	}
	fmt.Println("== go vet ./" + name)
	c.Fatal(harness.Go("vet", "./"+name))
	made = true
	fmt.Printf("\nmade %s/, a copy of %s, listed in local.work and kept out of git (git status shows nothing).\n", name, from)
	fmt.Printf("Next: export GOWORK=$PWD/local.work (once in each terminal), go test ./%[1]s, change it, go run ./scripts/check %[1]s;\n"+
		"at the end, go run ./scripts/new-stage --remove %[1]s (WORKSHOP.md says more)\n", name)
}

// projectStart is the project's stage that the stage in folder dir was copied from, through the
// origin lines of the learner's copies of copies; dir itself when it is the project's.
func projectStart(dir string) string {
	mine := stages.Mine(".")
	for n := 0; slices.Contains(mine, dir) && n < 10; n++ { // the bound stops a loop of origin lines
		dir = stages.Origin(".", dir)
	}
	return dir
}

// sameFile reports whether the file at path holds data.
func sameFile(data []byte, path string) bool {
	theirs, err := os.ReadFile(path)
	return err == nil && bytes.Equal(data, theirs)
}

func copyFile(from, to string) error {
	data, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	return os.WriteFile(to, data, 0o644)
}

// syncWorkspace writes local.work: go.work and the stages made here. It stays when the last is
// removed, a copy of go.work, so that a shell whose GOWORK names it still runs the go command. It
// writes a new file beside it and renames it over local.work, with its .sum, so that a go command
// that reads them in another shell meanwhile reads the old file or the new, never half.
func syncWorkspace() {
	tmp, err := os.CreateTemp(".", "local-*.work")
	c.Fatal(err)
	c.Fatal(tmp.Close())
	defer os.Remove(tmp.Name())
	defer os.Remove(tmp.Name() + ".sum")
	c.Fatal(copyFile("go.work", tmp.Name()))
	sum := "local.work.sum"
	if _, err := os.Stat(sum); err != nil {
		sum = "go.work.sum"
	}
	copyFile(sum, tmp.Name()+".sum") // nothing to fetch again; none is fine
	if mine := stages.Mine("."); len(mine) > 0 {
		c.Fatal(harness.GoWith([]string{"GOWORK=" + filepath.Join(c.Root, tmp.Name())}, append([]string{"work", "use"}, mine...)...))
	}
	if _, err := os.Stat(tmp.Name() + ".sum"); err == nil {
		c.Fatal(os.Rename(tmp.Name()+".sum", "local.work.sum"))
	}
	c.Fatal(os.Rename(tmp.Name(), "local.work"))
	os.Setenv("GOWORK", filepath.Join(c.Root, "local.work"))
}
