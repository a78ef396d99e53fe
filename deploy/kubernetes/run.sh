#!/bin/sh
# Runs the Kubernetes recipe on the cluster kubectl points at: the claim,
# the data Job, the sharded Indexed Job, then the merge, each started only
# when the one before is Complete. A Failed Job stops it at once with its
# status and the tail of its logs (exit 1); so does one still running after
# FEDCON_K8S_TIMEOUT seconds (default 86400). FEDCON_K8S_JOBS names the
# Jobs to run, in order (default "data shards merge"; "shards merge" when
# the claim already holds the data sets in /work/datasets).
set -eu
cd "$(dirname "$0")"
timeout=${FEDCON_K8S_TIMEOUT:-86400}
jobs=${FEDCON_K8S_JOBS:-data shards merge}

wait_job() {
	end=$(($(date +%s) + timeout))
	while :; do
		state=$(kubectl get job "$1" -o jsonpath='{range .status.conditions[?(@.status=="True")]}{.type}{" "}{end}')
		case " $state " in
		*" Complete "*)
			echo "job/$1: complete"
			return 0
			;;
		*" Failed "*)
			echo "job/$1: FAILED" >&2
			kubectl describe job "$1" | tail -n 20 >&2
			kubectl logs "job/$1" --all-containers --tail=20 >&2 || true
			return 1
			;;
		esac
		if [ "$(date +%s)" -ge "$end" ]; then
			echo "job/$1: not finished after ${timeout}s" >&2
			return 1
		fi
		sleep 10
	done
}

kubectl apply -f pvc.yaml
for job in $jobs; do
	case $job in
	data | shards | merge) ;;
	*)
		echo "FEDCON_K8S_JOBS: no job $job (data, shards, merge)" >&2
		exit 2
		;;
	esac
	kubectl apply -f "$job-job.yaml"
	wait_job "fedcon-$job"
done
echo "results: /work/results/merged on claim fedcon-results"
