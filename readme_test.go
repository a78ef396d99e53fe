package main

import (
	"os"
	"strings"
	"testing"
)

// readmeMaxWords: the README is a front door, read in about five minutes;
// the rest belongs in docs/. Words are counted as wc -w counts them
// (whitespace-separated, code blocks and tables included).
const readmeMaxWords = 1200

func TestReadmeLength(t *testing.T) {
	b, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	if n := len(strings.Fields(string(b))); n > readmeMaxWords {
		t.Errorf("README.md has %d words, more than %d: move detail into docs/", n, readmeMaxWords)
	}
}
