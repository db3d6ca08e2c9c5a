package figures

import (
	"fmt"
	"go/version"
	"path/filepath"
	"slices"
	"strings"

	"example.com/userperf/scripts/internal/provenance"
	"example.com/userperf/scripts/internal/results"
	"example.com/userperf/scripts/internal/stages"
)

// ToolchainsBlock is the generated block of a run of compare --go in dir: a row per stage with its CPU time
// on each release, at 100 and 1,000 matches, and the change from the first release where the run could tell it.
func ToolchainsBlock(dir string) (string, error) {
	again, _ := filepath.Glob(filepath.Join(dir, "*.again.txt")) // the A/A label: the first stage on the first release
	if len(again) != 1 {
		return "", fmt.Errorf("%s: not a run of compare --go (want one *.again.txt, found %d)", dir, len(again))
	}
	aa, err := results.Read(again[0])
	if err != nil {
		return "", err
	}
	first, base := results.SplitToolchain(strings.TrimSuffix(aa.Name, ".again"))
	files, err := results.ReadDir(dir) // every stage@release but the A/A label
	if err != nil {
		return "", err
	}
	runs, names, toolchains := map[string]*results.File{}, []string(nil), []string{base}
	for _, f := range files {
		stage, toolchain := results.SplitToolchain(f.Name)
		runs[f.Name] = f
		if !slices.Contains(names, stage) {
			names = append(names, stage)
		}
		if !slices.Contains(toolchains, toolchain) {
			toolchains = append(toolchains, toolchain)
		}
	}
	slices.SortFunc(toolchains[1:], version.Compare)
	slices.SortFunc(names, stages.Compare)
	firstRun := runs[first+"@"+base]
	header := []string{"stage"}
	var noise []results.Comparison // the A/A label against its first run: the noise band at each size
	var bands []string
	for _, bench := range toolchainsMatches {
		header = append(header, matches(bench)+", "+base)
		for _, t := range toolchains[1:] {
			header = append(header, t, "change")
		}
		c, err := results.Compare(firstRun, aa, aa, bench)
		if err != nil {
			return "", err
		}
		noise, bands = append(noise, c), append(bands, fmt.Sprintf("%s at %s", c.AASaid(), matches(bench)))
	}
	var rows [][]string
	for _, name := range names {
		row := []string{name}
		for k, bench := range toolchainsMatches {
			for i, t := range toolchains {
				f := runs[name+"@"+t]
				if f == nil {
					return "", fmt.Errorf("%s: no results of %s on %s", dir, name, t)
				}
				row = append(row, Cell(f, bench, noise[k].Unit, results.Duration))
				if i > 0 {
					row = append(row, change(runs[name+"@"+base], f, bench, noise[k].Noise))
				}
			}
		}
		rows = append(rows, row)
	}
	config := results.AcrossToolchains(firstRun.Config, toolchains)
	unit := noise[0].UnitName
	return Table(header, rows) + fmt.Sprintf("\n\n%s per operation of `Benchmark%s` and `matches=1000` (the "+
		"lookup and the JSON encoding of 100 and of 1,000 users among 10,000, in process), the median of %d rounds: "+
		"each stage's test binary built by each Go release, all run interleaved in one run on one machine. Change: "+
		"a release's time over %s's, minus one (the median of every ratio of their samples), where its 95%% CI leaves out "+
		"1x and the run's noise band (two measurements of %s on %s: %s); `~`: "+
		"cannot tell on this machine.\n\n%s\n", strings.ToUpper(unit[:1])+unit[1:], results.Headline, len(firstRun.Values(results.Headline, "sec/op")),
		base, first, base, strings.Join(bands, ", "), provenance.Line(config)), nil
}

// change is other's median over base's at bench, minus one, as "+16%", or "~" where noise hides it.
func change(base, other *results.File, bench string, noise results.Interval) string {
	c, err := results.Compare(base, nil, other, bench)
	if c = c.WithNoise(noise); err != nil || !c.Decided {
		return "~"
	}
	return fmt.Sprintf("%+.0f%%", 100*(1/c.Ratio-1))
}

// toolchainsMatches are the result sizes of the toolchains block: 100 and 1,000 users of 10,000.
var toolchainsMatches = []string{results.Headline, results.Matches1000}

// matches is the last part of a benchmark's name: matches=100.
func matches(bench string) string { return bench[strings.LastIndex(bench, "/")+1:] }
