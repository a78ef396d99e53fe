package cmd

import (
	"fmt"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"
)

// buildCommit is set by the Makefile (-ldflags -X) when VCS stamping is off:
// the short commit, with "-dirty" when the work tree had uncommitted changes.
var buildCommit string

// version is the fedcon version recorded in every result and trial file.
func version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		bi = nil
	}
	return versionOf(bi, buildCommit)
}

// versionOf names the build: the module version when one was installed by
// version (go install module@v1.2.3); else devel+<commit>, with "-dirty"
// when the work tree was modified, from the VCS stamp (vcs.revision,
// vcs.modified) or the Makefile's commit; else devel+dirty. A build whose
// code cannot be named is never reported without the mark that says so.
func versionOf(bi *debug.BuildInfo, commit string) string {
	rev, dirty := "", false
	if bi != nil {
		if v := bi.Main.Version; v != "" && v != "(devel)" {
			return v
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				dirty = s.Value == "true"
			}
		}
	}
	suffix := ""
	if rev == "" {
		rev = commit
		if r, ok := strings.CutSuffix(rev, "-dirty"); ok {
			rev, dirty = r, true
		}
	}
	if rev == "" || rev == "unknown" {
		return "devel+dirty"
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if dirty {
		suffix = "-dirty"
	}
	return "devel+" + rev + suffix
}

func newCmdVersion(f *Factory) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the fedcon version",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, err := fmt.Fprintf(f.IO.Out, "fedcon %s\n", f.Version)
			return err
		},
	}
}
