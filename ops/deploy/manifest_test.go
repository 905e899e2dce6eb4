package deploy

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	"github.com/photo3d/photo3d/internal/catalog"
	"github.com/photo3d/photo3d/internal/dbtest"
	"github.com/photo3d/photo3d/internal/job"
	"github.com/photo3d/photo3d/internal/upload"
)

// obj is one rendered Kubernetes object, kept as plain maps: the test reads
// what kubectl would send, not Go types that could paper over a typo.
type obj map[string]any

func (o obj) kind() string { return str(o, "kind") }
func (o obj) name() string { return str(o, "metadata", "name") }

// get walks nested maps; a missing step gives nil.
func get(v any, path ...string) any {
	for _, p := range path {
		switch m := v.(type) {
		case obj: // yaml.v3 decodes nested maps as the outer type
			v = m[p]
		case map[string]any:
			v = m[p]
		default:
			return nil
		}
	}
	return v
}

func str(v any, path ...string) string { s, _ := get(v, path...).(string); return s }

func list(v any, path ...string) []any { l, _ := get(v, path...).([]any); return l }

// kustomize is the pinned `go run` target from tools.env.
func kustomize(t *testing.T) string {
	t.Helper()
	f, err := os.Open("tools.env")
	require.NoError(t, err)
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "KUSTOMIZE="); ok {
			return v
		}
	}
	t.Fatal("tools.env has no KUSTOMIZE= line")
	return ""
}

// render runs kustomize from the Go module proxy (cached in the module cache
// after the first run) on one kustomization and decodes every object.
func render(t *testing.T, dir string) []obj {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	var out, errb bytes.Buffer
	cmd := exec.CommandContext(ctx, "go", "run", kustomize(t), "build", dir)
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("kustomize build %s: %v\n%s\n(kustomize runs from the Go module proxy: is it reachable, or the module cached?)", dir, err, errb.String())
	}
	var objs []obj
	dec := yaml.NewDecoder(&out)
	for {
		var o obj
		err := dec.Decode(&o)
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err, "decode %s", dir)
		if o != nil {
			objs = append(objs, o)
		}
	}
	require.NotEmpty(t, objs, dir)
	return objs
}

func find(objs []obj, kind, name string) obj {
	for _, o := range objs {
		if o.kind() == kind && o.name() == name {
			return o
		}
	}
	return nil
}

// secretName matches settings that are credentials: they must come from a
// Secret, never from a ConfigMap or a literal in a manifest.
var secretName = regexp.MustCompile(`(?i)(SECRET|PASSWORD|TOKEN|API_KEY|PRIVATE_KEY|DATABASE_URL)`)

// podSpecs returns the pod template of every workload, by "Kind/name".
func podSpecs(objs []obj) map[string]any {
	out := map[string]any{}
	for _, o := range objs {
		switch o.kind() {
		case "Deployment", "StatefulSet", "DaemonSet", "Job":
			out[o.kind()+"/"+o.name()] = get(o, "spec", "template", "spec")
		case "CronJob":
			out[o.kind()+"/"+o.name()] = get(o, "spec", "jobTemplate", "spec", "template", "spec")
		}
	}
	return out
}

// env is what a container sees: its ConfigMaps' data, then env literals.
// Args (-queues …) are handled by servedQueues.
func env(objs []obj, c any) map[string]string {
	e := map[string]string{}
	for _, ef := range list(c, "envFrom") {
		if cm := str(ef, "configMapRef", "name"); cm != "" {
			for k, v := range get(find(objs, "ConfigMap", cm), "data").(obj) {
				e[k], _ = v.(string)
			}
		}
	}
	for _, ev := range list(c, "env") {
		if v, ok := get(ev, "value").(string); ok {
			e[str(ev, "name")] = v
		}
	}
	return e
}

// servedQueues is the River queues a worker container takes jobs from: its
// -queues argument, else QUEUES from its environment.
func servedQueues(objs []obj, c any) []string {
	q := env(objs, c)["QUEUES"]
	args := list(c, "args")
	for i, a := range args {
		if (a == "-queues" || a == "--queues") && i+1 < len(args) {
			q, _ = args[i+1].(string)
		}
	}
	var out []string
	for _, s := range strings.Split(q, ",") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

var (
	queueIn = regexp.MustCompile(`(?i)queue\s+IN\s*\(([^)]*)\)`)
	queueEq = regexp.MustCompile(`(?i)queue\s*=\s*'([^']+)'`)
	quoted  = regexp.MustCompile(`'([^']+)'`)
)

// queriedQueues is the queues a scaler's SQL counts.
func queriedQueues(query string) []string {
	var out []string
	if m := queueIn.FindStringSubmatch(query); m != nil {
		for _, q := range quoted.FindAllStringSubmatch(m[1], -1) {
			out = append(out, q[1])
		}
	}
	if m := queueEq.FindStringSubmatch(query); m != nil {
		out = append(out, m[1])
	}
	slices.Sort(out)
	return out
}

// TestManifests renders the base and both KEDA overlays and checks what an
// operator relies on in every one of them.
func TestManifests(t *testing.T) {
	t.Parallel()
	for _, dir := range []string{"kubernetes", "keda", "keda-gpu"} {
		t.Run(dir, func(t *testing.T) {
			t.Parallel()
			objs := render(t, dir)
			checkWorkloads(t, objs)
			checkSecrets(t, objs)
			checkEveryQueueIsServed(t, objs)
			api := firstContainer(find(objs, "Deployment", "photo3d-api"))
			require.NotNil(t, api, "the api Deployment")
			require.NotEmpty(t, env(objs, api)["TRUSTED_PROXIES"],
				"the api must know its proxies, or every shopper shares the proxy's rate limit")

			hpa := find(objs, "HorizontalPodAutoscaler", "photo3d-worker")
			so := find(objs, "ScaledObject", "photo3d-worker")
			if dir == "kubernetes" {
				require.NotNil(t, hpa, "the base keeps the CPU HPA for clusters without KEDA")
				require.Nil(t, so)
				return
			}
			require.Nil(t, hpa, "KEDA creates its own HPA; a second one would fight it")
			require.NotNil(t, so)
			require.EqualValues(t, 1, get(so, "spec", "minReplicaCount"), "projections run in the CPU workers: never zero")
			if dir == "keda-gpu" {
				gpu := find(objs, "ScaledObject", "photo3d-worker-gpu")
				require.NotNil(t, gpu)
				require.EqualValues(t, 0, get(gpu, "spec", "minReplicaCount"), "an idle GPU pool scales to zero")
				require.Nil(t, get(find(objs, "Deployment", "photo3d-worker-gpu"), "spec", "replicas"),
					"KEDA owns the count; a replicas field would reset it on every apply")
				require.Equal(t, []string{job.QueueReconstruct}, queriedQueues(str(list(gpu, "spec", "triggers")[0], "metadata", "query")))
			}
			checkScalers(t, objs)
		})
	}
}

func firstContainer(o obj) any {
	cs := list(o, "spec", "template", "spec", "containers")
	if len(cs) == 0 {
		return nil
	}
	return cs[0]
}

// checkWorkloads: limits, probes and a locked-down, non-root security context
// on every container of every workload.
func checkWorkloads(t *testing.T, objs []obj) {
	t.Helper()
	specs := podSpecs(objs)
	require.NotEmpty(t, specs)
	for name, spec := range specs {
		podNonRoot, _ := get(spec, "securityContext", "runAsNonRoot").(bool)
		containers := append(list(spec, "initContainers"), list(spec, "containers")...)
		require.NotEmpty(t, containers, name)
		for _, c := range containers {
			where := name + " container " + str(c, "name")
			for _, r := range []string{"cpu", "memory"} {
				require.NotEmpty(t, get(c, "resources", "requests", r), "%s: requests.%s", where, r)
			}
			// No CPU limit on purpose (throttling stalls reconstruction and
			// probes); memory is limited so a leak kills the pod, not the node.
			require.NotEmpty(t, get(c, "resources", "limits", "memory"), "%s: limits.memory", where)
			if strings.HasPrefix(name, "Deployment/") {
				require.NotNil(t, get(c, "livenessProbe"), "%s: livenessProbe", where)
				require.NotNil(t, get(c, "readinessProbe"), "%s: readinessProbe", where)
			}
			nonRoot, ok := get(c, "securityContext", "runAsNonRoot").(bool)
			if !ok {
				nonRoot = podNonRoot
			}
			require.True(t, nonRoot, "%s: runAsNonRoot", where)
			if uid, ok := get(c, "securityContext", "runAsUser").(int); ok {
				require.NotZero(t, uid, where)
			}
			require.Equal(t, false, get(c, "securityContext", "allowPrivilegeEscalation"), "%s: allowPrivilegeEscalation", where)
			require.Equal(t, true, get(c, "securityContext", "readOnlyRootFilesystem"), "%s: readOnlyRootFilesystem", where)
			require.Contains(t, list(c, "securityContext", "capabilities", "drop"), "ALL", where)
		}
	}
}

// checkSecrets: credentials only ever reach a pod from a Secret, and no
// Secret with values is rendered (they are created out of band).
func checkSecrets(t *testing.T, objs []obj) {
	t.Helper()
	for _, o := range objs {
		require.NotEqual(t, "Secret", o.kind(), "secret.example.yaml is a template; real Secrets are created out of band")
		if o.kind() == "ConfigMap" {
			for k, v := range get(o, "data").(obj) {
				require.False(t, secretName.MatchString(k), "ConfigMap %s holds %s: put it in the Secret", o.name(), k)
				require.NotRegexp(t, `://[^/@\s]+:[^/@\s]+@`, v, "ConfigMap %s: %s carries credentials", o.name(), k)
			}
		}
	}
	for name, spec := range podSpecs(objs) {
		for _, c := range list(spec, "containers") {
			fromSecret := false
			for _, ef := range list(c, "envFrom") {
				fromSecret = fromSecret || str(ef, "secretRef", "name") != ""
			}
			require.True(t, fromSecret, "%s: DATABASE_URL and JWT_SECRET come from the Secret", name)
			for _, ev := range list(c, "env") {
				if secretName.MatchString(str(ev, "name")) {
					require.Nil(t, get(ev, "value"), "%s: %s as a literal", name, str(ev, "name"))
					require.Nil(t, get(ev, "valueFrom", "configMapKeyRef"), "%s: %s from a ConfigMap", name, str(ev, "name"))
				}
			}
		}
	}
	for _, o := range objs {
		if o.kind() != "TriggerAuthentication" {
			continue
		}
		refs := list(o, "spec", "secretTargetRef")
		require.NotEmpty(t, refs, "KEDA reads the database URL from the Secret")
		require.Equal(t, "DATABASE_URL", str(refs[0], "key"))
	}
}

// ourQueues is every River queue the api and the worker insert jobs into.
var ourQueues = []string{river.QueueDefault, job.QueueReconstruct, upload.QueueCutout, catalog.QueueModel}

// checkEveryQueueIsServed fails when a rendering leaves a queue without a
// worker: its jobs would wait forever (keda-gpu once served only `default`
// on the CPU pods, so cut-outs and uploaded models were never prepared).
func checkEveryQueueIsServed(t *testing.T, objs []obj) {
	t.Helper()
	served := map[string]bool{}
	for _, o := range objs {
		if o.kind() != "Deployment" || !strings.HasPrefix(o.name(), "photo3d-worker") {
			continue
		}
		for _, q := range servedQueues(objs, firstContainer(o)) {
			served[q] = true
		}
	}
	for _, q := range ourQueues {
		require.True(t, served[q], "no worker Deployment serves the %q queue", q)
	}
}

// checkScalers runs every ScaledObject's query against a real, migrated
// database holding one job per queue that our code inserts, so a renamed
// queue, a typo in a state or broken SQL fails here rather than leaving a
// pool at zero in production. The queues counted must be ones the scaled
// Deployment serves.
func checkScalers(t *testing.T, objs []obj) {
	t.Helper()
	db := dbtest.New(t)
	ctx := context.Background()
	rc, err := river.NewClient(riverpgxv5.New(db.Pool), &river.Config{})
	require.NoError(t, err)
	// One waiting reconstruction, exactly as the api enqueues it, and one job
	// on each other queue.
	_, err = rc.Insert(ctx, job.ReconstructArgs{JobID: "00000000-0000-0000-0000-000000000001"}, nil)
	require.NoError(t, err)
	for _, q := range []string{river.QueueDefault, upload.QueueCutout, catalog.QueueModel} {
		_, err = rc.Insert(ctx, probeArgs{}, &river.InsertOpts{Queue: q})
		require.NoError(t, err)
	}
	// Jobs that must not keep pods up: finished, and a retry hours away.
	_, err = db.Pool.Exec(ctx, `INSERT INTO river_job (kind, queue, state, args, max_attempts, scheduled_at, finalized_at)
VALUES ('reconstruct', $1, 'completed', '{}', 3, now(), now()), ('reconstruct', $1, 'retryable', '{}', 3, now() + interval '3 hours', NULL)`, job.QueueReconstruct)
	require.NoError(t, err)

	n := 0
	for _, so := range objs {
		if so.kind() != "ScaledObject" {
			continue
		}
		n++
		target := find(objs, "Deployment", str(so, "spec", "scaleTargetRef", "name"))
		require.NotNil(t, target, "%s scales a Deployment that exists", so.name())
		trig := list(so, "spec", "triggers")
		require.Len(t, trig, 1)
		require.Equal(t, "postgresql", str(trig[0], "type"))
		require.Equal(t, "photo3d-postgres", str(trig[0], "authenticationRef", "name"))
		require.NotNil(t, find(objs, "TriggerAuthentication", "photo3d-postgres"))
		require.NotEmpty(t, str(trig[0], "metadata", "targetQueryValue"))

		query := str(trig[0], "metadata", "query")
		queues := queriedQueues(query)
		require.NotEmpty(t, queues, "%s: the query names its queues", so.name())
		served := servedQueues(objs, firstContainer(target))
		for _, q := range queues {
			require.Contains(t, ourQueues, q, "%s counts a queue nobody inserts into", so.name())
			require.Contains(t, served, q, "%s counts queue %q that %s does not serve", so.name(), q, target.name())
		}
		var count int64
		require.NoError(t, db.Pool.QueryRow(ctx, query).Scan(&count), "%s: %s", so.name(), query)
		require.EqualValues(t, len(queues), count, "%s counts the one waiting job of each of its queues", so.name())
	}
	require.NotZero(t, n)
}

// probeArgs is a job on the default queue for the scaler queries to count.
type probeArgs struct{}

func (probeArgs) Kind() string { return "deploy_test_probe" }
