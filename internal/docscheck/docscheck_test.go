// Package docscheck keeps the documentation's commands true to the tree.
//
// README.md and docs/*.md tell newcomers, operators and reviewers which
// command prints a figure or does a job. Those commands rot silently when a
// script is renamed, a make target or test disappears, a flag or an
// environment variable changes name. This test reads every command the
// documents show (fenced bash/sh blocks and inline `code` that starts with a
// command) and checks each against the tree; the cheap ones it runs
// (`make -n`, `bash -n`). Commands that need an outside service (docker,
// kubectl, aws, a running api) are checked only for the parts that live here.
package docscheck

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/photo3d/photo3d/internal/webhook"
)

// root is the repository root, two levels above this package.
const root = "../.."

// reporter is where a failed check goes: the test, or a recorder in the
// checker's own test.
type reporter interface {
	Errorf(format string, args ...any)
}

type recorder struct{ msgs []string }

func (r *recorder) Errorf(format string, args ...any) {
	r.msgs = append(r.msgs, fmt.Sprintf(format, args...))
}

// A command found in a document, with where it was found for the failure message.
type command struct {
	doc, line string
	text      string
}

var (
	fenceRe  = regexp.MustCompile("(?s)```(bash|sh)\n(.*?)```")
	inlineRe = regexp.MustCompile("`([^`\n]+)`")
	envRe    = regexp.MustCompile(`^([A-Z][A-Z0-9_]*)=("[^"]*"|'[^']*'|\S*)\s*`)
	// heads of inline code spans that are commands (anything else in
	// backticks is a name, a path or a value).
	commandHeads = []string{"make", "go", "ops/", "bin/", "node", "npm", "npx", "cd", "bash"}
	// commands this test does not look into: outside services or the shell's own.
	external = []string{"docker", "kubectl", "aws", "curl", "echo", "case", "until", "auth=", "slot=", "put=", "job=", "pub=", "[", "sleep", "done", "esac", "CREATE", "SET", "openssl", "apt-get", "jq"}
)

func documents(t *testing.T) []string {
	t.Helper()
	docs, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	docs = append(docs, filepath.Join(root, "README.md"))
	if len(docs) < 5 {
		t.Fatalf("expected README.md and the docs/ split, found %v", docs)
	}
	return docs
}

// commandsOf extracts the commands of one document.
func commandsOf(t *testing.T, path string) []command {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc := filepath.Base(path)
	text := string(raw)
	var out []command
	for _, m := range fenceRe.FindAllStringSubmatch(text, -1) {
		// join continuation lines, drop comments
		block := strings.ReplaceAll(m[2], "\\\n", " ")
		for l := range strings.Lines(block) {
			l = strings.TrimSpace(l)
			if i := strings.Index(l, " #"); i >= 0 {
				l = strings.TrimSpace(l[:i])
			}
			if l == "" || strings.HasPrefix(l, "#") {
				continue
			}
			out = append(out, command{doc: doc, line: l, text: l})
		}
	}
	outside := fenceRe.ReplaceAllString(text, "")
	for _, m := range inlineRe.FindAllStringSubmatch(outside, -1) {
		c := strings.TrimSpace(m[1])
		head := strings.TrimSpace(envRe.ReplaceAllString(c, ""))
		for envRe.MatchString(head) {
			head = strings.TrimSpace(envRe.ReplaceAllString(head, ""))
		}
		if slices.ContainsFunc(commandHeads, func(h string) bool {
			return strings.HasPrefix(head, h+" ") || (strings.HasSuffix(h, "/") && strings.HasPrefix(head, h))
		}) {
			out = append(out, command{doc: doc, line: c, text: c})
		}
	}
	return out
}

// TestDocsCommandsRun checks every documented command against the tree.
func TestDocsCommandsRun(t *testing.T) {
	targets := makeTargets(t)
	source := newSourceIndex(t)
	checked := 0
	for _, path := range documents(t) {
		for _, c := range commandsOf(t, path) {
			for part := range strings.SplitSeq(c.text, "&&") {
				if checkOne(t, c, strings.TrimSpace(part), targets, source) {
					checked++
				}
			}
		}
	}
	if checked < 40 {
		t.Fatalf("only %d documented commands were checked; the extractor is broken", checked)
	}
	t.Logf("%d documented commands checked", checked)
}

// checkOne checks one simple command; it reports whether it knew the command.
func checkOne(r reporter, c command, cmd string, targets map[string]bool, src *sourceIndex) bool {
	fail := func(format string, args ...any) {
		r.Errorf("%s: %q: "+format, append([]any{c.doc, c.line}, args...)...)
	}
	// leading environment assignments: each variable must be read somewhere
	for {
		m := envRe.FindStringSubmatch(cmd)
		if m == nil {
			break
		}
		if !src.mentions(m[1]) {
			fail("sets %s, which no script, Makefile or Go/TS code reads", m[1])
		}
		cmd = strings.TrimSpace(cmd[len(m[0]):])
	}
	fields := strings.Fields(cmd)
	if len(fields) == 0 {
		return false
	}
	switch head := fields[0]; {
	case slices.ContainsFunc(external, func(e string) bool { return strings.HasPrefix(head, e) }):
		return false
	case head == "cd":
		if len(fields) > 1 && !exists(fields[1]) {
			fail("no directory %s", fields[1])
		}
	case head == "make":
		args := fields[1:]
		var goals []string
		for _, a := range args {
			if strings.Contains(a, "=") {
				if !src.mentions(strings.SplitN(a, "=", 2)[0]) {
					fail("sets %s, which nothing reads", a)
				}
				continue
			}
			if !targets[a] {
				fail("no make target %q", a)
			}
			goals = append(goals, a)
		}
		if len(goals) > 0 {
			out, err := exec.Command("make", append([]string{"-C", root, "-n"}, goals...)...).CombinedOutput()
			if err != nil {
				fail("make -n fails: %v\n%s", err, out)
			}
		}
	case strings.HasPrefix(head, "ops/") && strings.HasSuffix(head, ".sh"), head == "bash" && len(fields) > 1:
		script := head
		if head == "bash" {
			script = fields[1]
		}
		st, err := os.Stat(filepath.Join(root, script))
		switch {
		case err != nil:
			fail("no script %s", script)
		case head != "bash" && st.Mode()&0o111 == 0:
			fail("%s is not executable", script)
		default:
			if out, err := exec.Command("bash", "-n", filepath.Join(root, script)).CombinedOutput(); err != nil {
				fail("bash -n %s: %v\n%s", script, err, out)
			}
		}
	case head == "go" && len(fields) > 1 && fields[1] == "run":
		pkg := firstPackage(fields[2:])
		if pkg == "" || !exists(pkg) {
			fail("no package %s to run", pkg)
		}
	case head == "go" && len(fields) > 2 && fields[1] == "test":
		checkGoTest(fail, fields[2:], src)
	case head == "node":
		if len(fields) > 1 && !exists(fields[1]) && !exists(filepath.Join("web", fields[1])) {
			fail("no script %s", fields[1])
		}
	case head == "bin/worker":
		if len(fields) > 1 && !strings.HasPrefix(fields[1], "-") && !src.workerCommand(fields[1]) {
			fail("bin/worker has no subcommand %q", fields[1])
		}
	case head == "bin/api", head == "npm", head == "npx", head == "go":
		// built or installed tools: nothing here to check beyond the tree
	default:
		return false
	}
	return true
}

// checkGoTest checks `go test` flags: the package, -run and -bench names and
// the package's own flags.
func checkGoTest(fail func(string, ...any), args []string, src *sourceIndex) {
	pkg := firstPackage(args)
	if pkg == "" {
		fail("no package named")
		return
	}
	dir := strings.TrimSuffix(strings.TrimSuffix(strings.TrimPrefix(pkg, "./"), "..."), "/")
	if dir == "" {
		dir = "."
	}
	if !exists(dir) {
		fail("no package %s", pkg)
		return
	}
	testSrc := src.testsOf(dir, strings.HasSuffix(pkg, "..."))
	pkgAt := slices.Index(args, pkg)
	afterArgs := false
	known := map[string]bool{"-run": true, "-bench": true, "-cpu": true, "-benchtime": true, "-benchmem": true, "-count": true, "-v": true, "-race": true, "-fuzz": true, "-update": true, "-list": true, "-timeout": true, "-short": true}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !strings.HasPrefix(a, "-") {
			continue
		}
		name := strings.SplitN(a, "=", 2)[0]
		switch name {
		case "-run", "-bench", "-fuzz":
			if i+1 >= len(args) {
				fail("%s without a pattern", name)
				continue
			}
			i++
			for _, fn := range testNames(args[i]) {
				prefix := map[string]string{"-run": "Test", "-bench": "Benchmark", "-fuzz": "Fuzz"}[name]
				if !strings.HasPrefix(fn, prefix) {
					fn = prefix + fn
				}
				if !strings.Contains(testSrc, "func "+fn) {
					fail("%s: no %s in %s", name, fn, dir)
				}
			}
		case "-cpu", "-benchtime", "-count", "-timeout":
			i++
		case "-args":
			afterArgs = true
		default:
			if known[name] {
				continue
			}
			if !strings.Contains(testSrc, `"`+strings.TrimPrefix(name, "-")+`"`) {
				fail("flag %s is not defined by %s's tests", name, dir)
			}
			// go test hands the first flag it does not know, and everything
			// after it, to the test binary: a package named after it is
			// never built ("no Go files in ."). The test's own flags go
			// after the package, best behind -args.
			if !afterArgs && i < pkgAt {
				fail("the test flag %s comes before the package %s: go test would not test that package (put it after the package, behind -args)", name, pkg)
			}
		}
	}
}

// testNames returns the plain names a -run/-bench pattern names (alternatives
// and sub-test paths are split; a pattern that is a regexp only, such as
// '^$', names nothing).
func testNames(pattern string) []string {
	pattern = strings.Trim(pattern, `'"`)
	var names []string
	for alt := range strings.SplitSeq(pattern, "|") {
		alt = strings.Split(alt, "/")[0]
		alt = strings.Trim(alt, "^$()")
		if regexp.MustCompile(`^[A-Za-z0-9_]+$`).MatchString(alt) {
			names = append(names, alt)
		}
	}
	return names
}

func firstPackage(args []string) string {
	for _, a := range args {
		if strings.HasPrefix(a, "./") {
			return a
		}
	}
	return ""
}

func exists(rel string) bool {
	_, err := os.Stat(filepath.Join(root, rel))
	return err == nil
}

func makeTargets(t *testing.T) map[string]bool {
	t.Helper()
	f, err := os.Open(filepath.Join(root, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	targets := map[string]bool{}
	re := regexp.MustCompile(`^([a-z][a-z0-9-]*):`)
	for sc := bufio.NewScanner(f); sc.Scan(); {
		if m := re.FindStringSubmatch(sc.Text()); m != nil {
			targets[m[1]] = true
		}
	}
	return targets
}

// sourceIndex is the text of the scripts and code that read settings.
type sourceIndex struct {
	all    string
	worker string
	tests  map[string]string
}

func newSourceIndex(t *testing.T) *sourceIndex {
	t.Helper()
	var b strings.Builder
	for _, glob := range []string{"Makefile", "ops/*.sh", "ops/*.mjs", "ops/*/*.go", "internal/*/*.go", "internal/*/*/*.go", "cmd/*/*.go", "web/*.ts", "web/scripts/*.mjs", "web/e2e/*.ts"} {
		files, _ := filepath.Glob(filepath.Join(root, glob))
		for _, f := range files {
			if strings.Contains(f, "docscheck") { // this test names settings that must not exist
				continue
			}
			raw, err := os.ReadFile(f)
			if err == nil {
				b.Write(raw)
			}
		}
	}
	var w strings.Builder
	files, _ := filepath.Glob(filepath.Join(root, "cmd", "worker", "*.go"))
	for _, f := range files {
		raw, _ := os.ReadFile(f)
		w.Write(raw)
	}
	return &sourceIndex{all: b.String(), worker: w.String(), tests: map[string]string{}}
}

func (s *sourceIndex) mentions(name string) bool { return strings.Contains(s.all, name) }

func (s *sourceIndex) workerCommand(name string) bool {
	return strings.Contains(s.worker, `case "`+name+`"`) || strings.Contains(s.worker, `"`+name+`"`)
}

// testsOf is the text of a package's test files, or of every package under
// dir when recursive (a `./x/...` pattern).
func (s *sourceIndex) testsOf(dir string, recursive bool) string {
	key := fmt.Sprint(dir, recursive)
	if src, ok := s.tests[key]; ok {
		return src
	}
	var b strings.Builder
	_ = filepath.WalkDir(filepath.Join(root, dir), func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() {
			if path != filepath.Join(root, dir) && (!recursive || d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(path, "_test.go") {
			if raw, err := os.ReadFile(path); err == nil {
				b.Write(raw)
			}
		}
		return nil
	})
	s.tests[key] = b.String()
	return s.tests[key]
}

// The checker must catch what it exists to catch: a renamed script, a
// missing target, test or flag, and an environment variable nothing reads.
func TestDocsCheckerCatchesRot(t *testing.T) {
	targets := makeTargets(t)
	src := newSourceIndex(t)
	for _, bad := range []string{
		"ops/no-such-script.sh",
		"make no-such-target",
		"go test -run TestNoSuchTestAnywhere ./internal/eventstore",
		"go test -run '^$' -bench Append -no.such.flag ./internal/eventstore",
		"NO_SUCH_SETTING_XYZ=1 make quality",
		"bin/worker no-such-subcommand",
		"go run ./ops/no-such-tool",
		"go test -run TestRealSetRegression -realset.four ./internal/reconstruct",
	} {
		fake := &recorder{}
		checkOne(fake, command{doc: "test", line: bad, text: bad}, bad, targets, src)
		if len(fake.msgs) == 0 {
			t.Errorf("the checker accepted %q", bad)
		}
	}
	good := &recorder{}
	checkOne(good, command{doc: "test", line: "x", text: "x"}, "QUALITY_CLASS=real make quality", targets, src)
	if len(good.msgs) > 0 {
		t.Errorf("the checker refused a documented command: %v", good.msgs)
	}
}

// The webhook verification snippet of docs/api.md runs as written in Node:
// it accepts a delivery signed by our sender and refuses a tampered body, a
// wrong secret and an old timestamp.
func TestDocsWebhookVerifierRuns(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatal("node is not installed; make test installs Node's packages, so install Node (20+)")
	}
	raw, err := os.ReadFile(filepath.Join(root, "docs", "api.md"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)```js\n(.*?)```").FindStringSubmatch(string(raw))
	if m == nil || !strings.Contains(m[1], "function verifyPhoto3D") {
		t.Fatal("docs/api.md has no js block with verifyPhoto3D")
	}
	const secret = "whsec_docs_example_secret"
	body := `{"id":"evt_1","type":"webhook.test","created":"2026-11-26T00:00:00Z","data":{}}`
	now := time.Now()
	header := webhook.Sign(secret, now, []byte(body))
	old := webhook.Sign(secret, now.Add(-10*time.Minute), []byte(body))
	script := m[1] + `
const [secret, header, old, body] = process.argv.slice(1); // node -e: no script path in argv
console.log(JSON.stringify([
  verifyPhoto3D(secret, header, body),
  verifyPhoto3D(secret, header, body + ' '),
  verifyPhoto3D('whsec_other', header, body),
  verifyPhoto3D(secret, old, body),
]));`
	out, err := exec.Command(node, "-e", script, "--", secret, header, old, body).CombinedOutput()
	if err != nil {
		t.Fatalf("node: %v\n%s", err, out)
	}
	if got := strings.TrimSpace(string(out)); got != "[true,false,false,false]" {
		t.Fatalf("verifyPhoto3D answered %s for [signed, tampered, wrong secret, old]; want [true,false,false,false]", got)
	}
}
