package results

import (
	"maps"
	"strings"
)

// OnToolchain names the results of stage measured with the test binary that
// toolchain built (compare --go): stage2-noclone@go1.27.3; with "", this
// machine's go, the stage's name alone.
func OnToolchain(stage, toolchain string) string {
	if toolchain == "" {
		return stage
	}
	return stage + "@" + toolchain
}

// SplitToolchain is the stage and the toolchain of a name that OnToolchain made.
func SplitToolchain(name string) (stage, toolchain string) {
	stage, toolchain, _ = strings.Cut(name, "@")
	return stage, toolchain
}

// AcrossToolchains is config, a header of results measured with each of
// toolchains, whose go-version names them all: for one provenance line.
func AcrossToolchains(config map[string]string, toolchains []string) map[string]string {
	config = maps.Clone(config)
	config["go-version"] = strings.Join(toolchains, " and ")
	return config
}
