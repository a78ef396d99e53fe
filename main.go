// Command fedcon solves constrained federated learning problems and
// reproduces the published experiments of the papers it implements.
package main

import (
	"os"

	"github.com/fedcon/fedcon/cmd"
)

func main() { os.Exit(cmd.Main()) }
