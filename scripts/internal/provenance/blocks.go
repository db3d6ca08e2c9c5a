package provenance

import (
	"errors"
	"fmt"
	"os"
	"regexp"
	"strings"
)

// Block is the generated text between the markers
// <!-- BEGIN GENERATED: name --> and <!-- END GENERATED: name --> of a
// markdown file. Only the scripts write there; the prose around it is left
// alone.
type Block struct{ Name, Content string }

func beginMarker(name string) string { return "<!-- BEGIN GENERATED: " + name + " -->" }
func endMarker(name string) string   { return "<!-- END GENERATED: " + name + " -->" }

// Replace puts content between the markers of block name in doc.
func Replace(doc, name, content string) (string, error) {
	begin, end := beginMarker(name), endMarker(name)
	i, j := strings.Index(doc, begin), strings.Index(doc, end)
	if i < 0 || j < i || strings.Count(doc, begin) != 1 || strings.Count(doc, end) != 1 {
		return "", fmt.Errorf("want one %s followed by one %s", begin, end)
	}
	return doc[:i+len(begin)] + "\n" + content + doc[j:], nil
}

// UpdateFile replaces blocks in the markdown file at path, and writes it
// only if that changed it. A block without markers is an error, after the
// others have been replaced.
func UpdateFile(path string, blocks ...Block) error {
	old, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	text := string(old)
	var errs []error
	for _, b := range blocks {
		replaced, err := Replace(text, b.Name, b.Content)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", path, err))
			continue
		}
		text = replaced
	}
	if text != string(old) {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			return err
		}
	}
	return errors.Join(errs...)
}

var beginPattern = regexp.MustCompile(`<!-- BEGIN GENERATED: (\S+) -->`)

// Blocks lists the generated blocks of doc in order. A block whose end
// marker is missing is an error, after the blocks before it.
func Blocks(doc string) ([]Block, error) {
	var blocks []Block
	for _, m := range beginPattern.FindAllStringSubmatchIndex(doc, -1) {
		name := doc[m[2]:m[3]]
		rest := doc[m[1]:]
		j := strings.Index(rest, endMarker(name))
		if j < 0 {
			return blocks, fmt.Errorf("%s has no %s", beginMarker(name), endMarker(name))
		}
		blocks = append(blocks, Block{name, rest[:j]})
	}
	return blocks, nil
}
