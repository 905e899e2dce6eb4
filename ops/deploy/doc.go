// Package deploy holds the container image, compose file and Kubernetes
// manifests (kubernetes/ is the base with a CPU HPA; keda/ and keda-gpu/
// scale workers on the River queue depth). It has no code of its own: its
// test renders every kustomization with the kustomize pinned in tools.env
// and checks what an operator relies on (limits, probes, non-root, secrets
// only from Secrets, scalers counting the queues the workers really serve).
package deploy
