// Package configs embeds fedcon's YAML presets (one per published table or
// figure) and the papers' published values, so that the binary reproduces
// the papers without a checkout. `fedcon ... --config FILE` overrides a preset.
package configs

import (
	"embed"
	"fmt"
	"io/fs"
	"sort"
	"strings"
)

//go:embed *.yaml reference/*.yaml ssca/*.yaml drfl/*.yaml
var files embed.FS

// Preset returns the YAML preset name (e.g. "table4").
func Preset(name string) ([]byte, error) {
	b, err := files.ReadFile(name + ".yaml")
	if err != nil {
		return nil, fmt.Errorf("configs: no preset %q (have %s)", name, strings.Join(Presets(), ", "))
	}
	return b, nil
}

// Presets lists the preset names.
func Presets() []string {
	ents, _ := fs.Glob(files, "*.yaml")
	var out []string
	for _, e := range ents {
		out = append(out, strings.TrimSuffix(e, ".yaml"))
	}
	sort.Strings(out)
	return out
}

// Reference returns configs/reference/name.yaml.
func Reference(name string) ([]byte, error) {
	b, err := files.ReadFile("reference/" + name + ".yaml")
	if err != nil {
		return nil, fmt.Errorf("configs: no reference %q", name)
	}
	return b, nil
}
