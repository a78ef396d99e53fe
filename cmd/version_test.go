package cmd

import (
	"runtime/debug"
	"testing"
)

func TestVersionOf(t *testing.T) {
	vcs := func(rev, modified string) *debug.BuildInfo {
		bi := &debug.BuildInfo{Main: debug.Module{Path: "github.com/fedcon/fedcon", Version: "(devel)"}}
		if rev != "" {
			bi.Settings = append(bi.Settings, debug.BuildSetting{Key: "vcs.revision", Value: rev})
		}
		if modified != "" {
			bi.Settings = append(bi.Settings, debug.BuildSetting{Key: "vcs.modified", Value: modified})
		}
		return bi
	}
	const full = "71d791b0123456789abcdef0123456789abcdef0"
	for _, tc := range []struct {
		name   string
		bi     *debug.BuildInfo
		commit string
		want   string
	}{
		{"no build info, no commit", nil, "", "devel+dirty"},
		{"plain go build without VCS stamping", vcs("", ""), "", "devel+dirty"},
		{"Dockerfile default commit", vcs("", ""), "unknown", "devel+dirty"},
		{"VCS stamp, clean", vcs(full, "false"), "", "devel+71d791b01234"},
		{"VCS stamp, modified", vcs(full, "true"), "", "devel+71d791b01234-dirty"},
		{"VCS stamp wins over the Makefile's commit", vcs(full, "false"), "aaaaaaaaaaaa", "devel+71d791b01234"},
		{"Makefile commit, clean", vcs("", ""), "71d791b01234", "devel+71d791b01234"},
		{"Makefile commit, dirty", vcs("", ""), "71d791b01234-dirty", "devel+71d791b01234-dirty"},
		{"module version", &debug.BuildInfo{Main: debug.Module{Version: "v1.2.3"}}, "", "v1.2.3"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := versionOf(tc.bi, tc.commit); got != tc.want {
				t.Errorf("versionOf = %q, want %q", got, tc.want)
			}
		})
	}
}
