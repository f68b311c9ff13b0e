/*
 * The C ABI from several threads, as slurmctld calls it: a reconfigure reloading while job_test
 * plans and reserves, the inventory watcher refreshes and the status service answers.
 * Built in C, against include/morpheus/morpheus.h only. contrib/ci/tsan.sh runs it under
 * ThreadSanitizer, which reports any access that is not under the engine's lock.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "morpheus/morpheus.h"

#define RELOADS 60
#define BIG_PODS 4000 /* x 10 nodes: a 40,000-node fabric whose load takes a second or more
			 * (the latency table: one Dijkstra per pod over all pods' switch ports) */
#define POD_NODES 10

static char dir[64];

static void path_of(char *out, size_t size, const char *name)
{
	snprintf(out, size, "%s/%s", dir, name);
}

static void copy_file(const char *from, const char *name)
{
	char to[256], buf[8192];
	size_t n;
	FILE *in = fopen(from, "r"), *out;

	path_of(to, sizeof(to), name);
	assert_non_null(in);
	assert_non_null(out = fopen(to, "w"));
	while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
		assert_int_equal(fwrite(buf, 1, n, out), n);
	fclose(in);
	fclose(out);
}

static void write_file(const char *name, const char *text)
{
	char path[256];
	FILE *f;

	path_of(path, sizeof(path), name);
	assert_non_null(f = fopen(path, "w"));
	fputs(text, f);
	fclose(f);
}

static void make_dir(void)
{
	strcpy(dir, "/tmp/morpheus-threads-XXXXXX");
	assert_non_null(mkdtemp(dir));
	copy_file(TOP_SRCDIR "/etc/fabric.json", "fabric.json");
	copy_file(TOP_SRCDIR "/etc/inventory.json", "inventory.json");
	write_file("morpheus.conf", "FabricFile=fabric.json\nInventoryFile=inventory.json\n"
				    "InventoryCheckInterval=1\nStatusPort=7070\n");
}

static void remove_dir(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

static morpheus_engine_t *open_engine(void)
{
	char conf[256], ledger[256];
	morpheus_error_t err;
	morpheus_engine_t *e;

	path_of(conf, sizeof(conf), "morpheus.conf");
	path_of(ledger, sizeof(ledger), "ledger.json");
	e = morpheus_engine_open(conf, ledger, &err);
	if (!e)
		fprintf(stderr, "open: %s\n", err.message);
	assert_non_null(e);
	return e;
}

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

/* Plans a one-node job with hot memory, reserves the first node of the plan's first step
 * and releases it: what job_test, job_begin and job_fini do. 0 on success. */
static int place_and_release(morpheus_engine_t *e, uint64_t job)
{
	morpheus_request_t r;
	morpheus_error_t err;
	morpheus_plan_t *plan;
	size_t count = morpheus_node_count(e);
	uint8_t *free_nodes = malloc(count), *allowed = malloc(count);
	uint32_t node = 0;
	int rc = -1;

	memset(&r, 0, sizeof(r));
	r.job_id = job;
	r.uid = 1000;
	r.nodes = 1;
	if (morpheus_request_set_flags(&r, "64G", "500ns", "128G", &err) < 0)
		goto out;
	memset(free_nodes, 1, count);
	if (!(plan = morpheus_plan_new(e, &r, free_nodes, &err)))
		goto out;
	morpheus_plan_step_nodes(plan, 0, allowed);
	morpheus_plan_destroy(&plan);
	while (node < count && !allowed[node])
		node++;
	if (node == count || morpheus_reserve(e, &r, &node, 1, &err) < 0)
		goto out;
	rc = morpheus_release(e, job, &err) == 1 ? 0 : -1;
out:
	if (rc < 0)
		fprintf(stderr, "job %lu: %s\n", (unsigned long) job, err.message);
	free(free_nodes);
	free(allowed);
	return rc;
}

struct shared {
	morpheus_engine_t *engine;
	volatile int stop; /* set under `lock` */
	pthread_mutex_t lock;
	int failures;
	int reload_failures;
};

static int stopped(struct shared *s)
{
	int stop;

	pthread_mutex_lock(&s->lock);
	stop = s->stop;
	pthread_mutex_unlock(&s->lock);
	return stop;
}

static void failed(struct shared *s, const char *what)
{
	fprintf(stderr, "concurrent call failed: %s\n", what);
	pthread_mutex_lock(&s->lock);
	s->failures++;
	pthread_mutex_unlock(&s->lock);
}

/* Every accessor, checked against what the files say (the reloads do not change them). */
static void *accessors(void *arg)
{
	struct shared *s = arg;
	char ledger[256];

	path_of(ledger, sizeof(ledger), "ledger.json");
	while (!stopped(s)) {
		char *state = morpheus_engine_state_file(s->engine);
		if (!state || strcmp(state, ledger))
			failed(s, "state_file");
		free(state);
		if (strcmp(morpheus_engine_failure_policy(s->engine), "requeue"))
			failed(s, "failure_policy");
		if (morpheus_engine_status_port(s->engine) != 7070)
			failed(s, "status_port");
		if (morpheus_node_count(s->engine) != 16)
			failed(s, "node_count");
		if (morpheus_node_index(s->engine, "gpu203") != 6 ||
		    morpheus_node_index(s->engine, "nosuchnode") != -1)
			failed(s, "node_index");
		if (morpheus_engine_generation(s->engine) < 1)
			failed(s, "generation");
	}
	return NULL;
}

static void *jobs(void *arg)
{
	struct shared *s = arg;
	uint64_t job = 1000 + (uint64_t) pthread_self() % 1000 * 1000;

	while (!stopped(s)) {
		char *status, *summary;
		if (place_and_release(s->engine, ++job) < 0)
			failed(s, "plan/reserve/release");
		if (!(status = morpheus_status_json(s->engine, 1000, job & 1)))
			failed(s, "status_json");
		free(status);
		summary = morpheus_job_summary(s->engine, job); /* released: NULL */
		if (summary)
			failed(s, "job_summary of a released job");
		free(summary);
	}
	return NULL;
}

static void *inventory_watcher(void *arg)
{
	struct shared *s = arg;
	morpheus_error_t err;
	int64_t t = time(NULL);
	char inv[256];

	path_of(inv, sizeof(inv), "inventory.json");
	while (!stopped(s)) {
		utimensat(AT_FDCWD, inv, NULL, 0); /* a new mtime: re-read */
		if (morpheus_engine_refresh_inventory(s->engine, ++t, &err) < 0)
			failed(s, err.message);
	}
	return NULL;
}

/* RELOADS reloads (each swaps config, model and state file) beside every other call. */
static void reload_beside_every_call(void **state)
{
	struct shared s = { .lock = PTHREAD_MUTEX_INITIALIZER };
	pthread_t t[4];
	morpheus_error_t err;

	make_dir();
	s.engine = open_engine();
	assert_int_equal(pthread_create(&t[0], NULL, accessors, &s), 0);
	assert_int_equal(pthread_create(&t[1], NULL, accessors, &s), 0);
	assert_int_equal(pthread_create(&t[2], NULL, jobs, &s), 0);
	assert_int_equal(pthread_create(&t[3], NULL, inventory_watcher, &s), 0);
	for (int i = 0; i < RELOADS; i++)
		if (morpheus_engine_reload(s.engine, &err) < 0) {
			fprintf(stderr, "reload: %s\n", err.message);
			s.reload_failures++;
		}
	pthread_mutex_lock(&s.lock);
	s.stop = 1;
	pthread_mutex_unlock(&s.lock);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	assert_int_equal(morpheus_engine_generation(s.engine), 1 + RELOADS);
	morpheus_engine_close(&s.engine);
	remove_dir();
	assert_int_equal(s.reload_failures, 0);
	assert_int_equal(s.failures, 0);
}

/* A 20,000-node fabric with the example's blades (so the example inventory fits it). */
static void write_big_fabric(FILE *f)
{
	fprintf(f, "{\"version\":1,\"pods\":[");
	for (int p = 0; p < BIG_PODS; p++)
		fprintf(f, "%s{\"name\":\"bigpod%d\",\"nodes\":\"big%d-[1-%d]\",\"gpus_per_node\":8}",
			p ? "," : "", p, p, POD_NODES);
	fprintf(f, "],\"switches\":[{\"name\":\"spine\"}],\"blades\":[");
	for (int b = 1; b <= 8; b++)
		fprintf(f, "%s{\"name\":\"blade%d\"}", b > 1 ? "," : "", b);
	fprintf(f, "],\"links\":[");
	for (int p = 0; p < BIG_PODS; p++)
		fprintf(f, "{\"from\":\"bigpod%d\",\"to\":\"spine\",\"latency\":\"100ns\",\"bandwidth\":400},",
			p);
	for (int b = 1; b <= 8; b++)
		fprintf(f, "%s{\"from\":\"blade%d\",\"to\":\"spine\",\"latency\":\"%dns\",\"bandwidth\":400}",
			b > 1 ? "," : "", b, 50 + 10 * b);
	fprintf(f, "]}\n");
}

struct reloader {
	morpheus_engine_t *engine;
	int rc;
	int started; /* set and read with __atomic builtins: the test must be race-free too */
	double seconds, ended_at;
	morpheus_error_t err;
};

static void *reload_thread(void *arg)
{
	struct reloader *r = arg;
	double t0 = now_s();

	__atomic_store_n(&r->started, 1, __ATOMIC_RELEASE);
	r->rc = morpheus_engine_reload(r->engine, &r->err);
	r->ended_at = now_s();
	r->seconds = r->ended_at - t0;
	return NULL;
}

struct caller {
	morpheus_engine_t *engine;
	pthread_mutex_t lock;
	pthread_cond_t done_cond;
	int done, rc, calls;
	double slowest, done_at;
};

static void *call_thread(void *arg)
{
	struct caller *c = arg;
	int rc = 0;
	double slowest = 0;

	for (int i = 0; i < 20; i++) {
		double t0 = now_s(), dt;
		rc |= place_and_release(c->engine, 5000 + i);
		if ((dt = now_s() - t0) > slowest)
			slowest = dt;
	}
	pthread_mutex_lock(&c->lock);
	c->done_at = now_s();
	c->done = 1;
	c->rc = rc;
	c->calls = 20;
	c->slowest = slowest;
	pthread_cond_signal(&c->done_cond);
	pthread_mutex_unlock(&c->lock);
	return NULL;
}

/*
 * The reload's files are read and the new model built without the engine's lock: while a
 * reload of a 40,000-node fabric runs, plan/reserve/release from another thread complete,
 * all of them before the reload ends. Before, the reload held the lock around the read and
 * the build, and they waited for all of it. (A FIFO cannot hold the reload inside the read any
 * more: special files are refused as FabricFile, so the fabric is big instead.)
 */
static void plan_and_reserve_during_reload(void **state)
{
	struct reloader r = { 0 };
	struct caller c = { .lock = PTHREAD_MUTEX_INITIALIZER, .done_cond = PTHREAD_COND_INITIALIZER };
	pthread_t reload, calls;
	char fabric[256];
	FILE *f;

	make_dir();
	r.engine = c.engine = open_engine();
	/* As in slurmctld: the calls do not wait for the disk either (two fsyncs each would
	 * make 20 of them as long as the reload on a busy disk, and the test about the disk). */
	morpheus_engine_set_background_saves(r.engine, 1);
	path_of(fabric, sizeof(fabric), "fabric.json");
	assert_non_null(f = fopen(fabric, "w"));
	write_big_fabric(f);
	fclose(f);
	assert_int_equal(pthread_create(&reload, NULL, reload_thread, &r), 0);
	while (!__atomic_load_n(&r.started, __ATOMIC_ACQUIRE))
		usleep(1000);
	usleep(20 * 1000); /* the reload is reading and building now */
	assert_int_equal(pthread_create(&calls, NULL, call_thread, &c), 0);
	pthread_join(calls, NULL);
	pthread_join(reload, NULL);
	fprintf(stderr, "reload of %d nodes: %.2f s; %d plan/reserve/release calls beside it, "
			"slowest %.1f ms, the last done %.2f s before the reload ended\n",
		BIG_PODS * POD_NODES, r.seconds, c.calls, c.slowest * 1000, r.ended_at - c.done_at);
	if (r.rc < 0)
		fprintf(stderr, "reload: %s\n", r.err.message);
	assert_int_equal(r.rc, 0);
	assert_int_equal(c.rc, 0);
	assert_true(c.done_at < r.ended_at); /* none waited for the reload */
	assert_int_equal(morpheus_node_count(r.engine), BIG_PODS * POD_NODES);
	assert_int_equal(morpheus_node_index(r.engine, "big3999-10"), BIG_PODS * POD_NODES - 1);
	/* The engine plans on the new fabric right away. */
	assert_int_equal(place_and_release(r.engine, 9000), 0);
	morpheus_engine_close(&r.engine);
	remove_dir();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(reload_beside_every_call),
		cmocka_unit_test(plan_and_reserve_during_reload),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
