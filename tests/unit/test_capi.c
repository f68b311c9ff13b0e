/*
 * The controller's C ABI as a shim sees it (include/morpheus/morpheus.h only, built in C): the
 * kind of every failure (err.code), and the plan that job_test walks: the decision's pod first,
 * then every other pod that can take the job, so the node selector can widen in one more call.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "morpheus/morpheus.h"

static char dir[64];
static char conf[128];

static void write_file(const char *name, const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	assert_non_null(f = fopen(path, "w"));
	fputs(text, f);
	fclose(f);
}

static int setup(void **state)
{
	strcpy(dir, "/tmp/morpheus-capi-XXXXXX");
	assert_non_null(mkdtemp(dir));
	snprintf(conf, sizeof(conf), "%s/morpheus.conf", dir);
	write_file("morpheus.conf", "FabricFile=" TOP_SRCDIR "/etc/fabric.json\n"
				    "InventoryFile=" TOP_SRCDIR "/etc/inventory.json\n");
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd);
}

static morpheus_engine_t *open_engine(const char *ledger)
{
	morpheus_error_t err;
	morpheus_engine_t *e = morpheus_engine_open(conf, ledger, &err);

	if (!e)
		fail_msg("engine: %s", err.message);
	return e;
}

static morpheus_request_t request(uint64_t job, uint32_t nodes, const char *hot, const char *bound)
{
	morpheus_request_t r;
	morpheus_error_t err;

	memset(&r, 0, sizeof(r));
	r.job_id = job;
	r.nodes = nodes;
	assert_int_equal(morpheus_request_set_flags(&r, hot, bound, NULL, &err), 0);
	assert_int_equal(err.code, MORPHEUS_OK);
	return r;
}

static void a_bad_value_is_an_input_error(void **state)
{
	morpheus_request_t r;
	morpheus_error_t err;

	memset(&r, 0, sizeof(r));
	assert_int_equal(morpheus_request_set_flags(&r, "12XB", NULL, NULL, &err), -1);
	assert_int_equal(err.code, MORPHEUS_E_INPUT);
	assert_string_equal(err.where, "--mem-hot");
}

static void a_missing_file_is_an_input_error(void **state)
{
	morpheus_error_t err;
	morpheus_engine_t *e = morpheus_engine_open("/nonexistent/morpheus.conf", NULL, &err);

	assert_null(e);
	assert_int_equal(err.code, MORPHEUS_E_INPUT);
	assert_string_equal(err.file, "/nonexistent/morpheus.conf");
}

static void nothing_free_is_pending_and_too_much_is_impossible(void **state)
{
	char ledger[128];
	morpheus_engine_t *e;
	morpheus_error_t err;
	morpheus_request_t r = request(7, 1, "64G", "250ns");
	size_t n;
	uint8_t *none;

	snprintf(ledger, sizeof(ledger), "%s/ledger-1", dir);
	e = open_engine(ledger);
	n = morpheus_node_count(e);
	none = calloc(n, 1);
	assert_null(morpheus_plan_new(e, &r, none, &err));
	assert_int_equal(err.code, MORPHEUS_E_PENDING);
	assert_true(strlen(err.message) > 0);
	r = request(8, 1, "900T", "250ns");
	assert_int_equal(morpheus_check_feasible(e, &r, &err), -1);
	assert_int_equal(err.code, MORPHEUS_E_IMPOSSIBLE);
	free(none);
	morpheus_engine_close(&e);
}

static void an_unwritable_ledger_is_a_system_error(void **state)
{
	morpheus_engine_t *e = open_engine("/proc/morpheus-no-such-dir/ledger");
	morpheus_error_t err;
	morpheus_request_t r = request(9, 1, "64G", "250ns");
	uint32_t node = 0;

	assert_int_equal(morpheus_reserve(e, &r, &node, 1, &err), -1);
	assert_int_equal(err.code, MORPHEUS_E_SYSTEM);
	assert_true(err.sys_errno != 0);
	/* Nothing kept in memory: the same job is not held. */
	assert_int_equal(morpheus_release(e, 9, &err), 0);
	morpheus_engine_close(&e);
}

/* Pods (the example fabric): pod1 = gpu[101-104] ... pod4 = gpu[401-404], 4 nodes each. */
static int pod_of(morpheus_engine_t *e, size_t node)
{
	static const char *names[] = { "gpu101", "gpu201", "gpu301", "gpu401" };

	for (int p = 0; p < 4; p++) {
		int first = morpheus_node_index(e, names[p]);
		if (first >= 0 && node >= (size_t) first && node < (size_t) first + 4)
			return p;
	}
	return -1;
}

static void the_plan_offers_the_decision_then_every_other_pod(void **state)
{
	char ledger[128];
	morpheus_engine_t *e;
	morpheus_error_t err;
	morpheus_request_t r = request(10, 1, "16G", "1us"); /* every pod can take it */
	morpheus_plan_t *plan;
	size_t n;
	uint8_t *all, *allowed;
	int pods0[4] = { 0 }, pods1[4] = { 0 }, chosen = -1;

	snprintf(ledger, sizeof(ledger), "%s/ledger-2", dir);
	e = open_engine(ledger);
	n = morpheus_node_count(e);
	all = malloc(n);
	allowed = malloc(n);
	memset(all, 1, n);
	assert_non_null(plan = morpheus_plan_new(e, &r, all, &err));
	assert_int_equal(morpheus_plan_steps(plan), 2);
	morpheus_plan_step_nodes(plan, 0, allowed);
	for (size_t i = 0; i < n; i++)
		if (allowed[i])
			pods0[pod_of(e, i)] = 1;
	for (int p = 0; p < 4; p++)
		if (pods0[p])
			chosen = (chosen < 0) ? p : 99;
	assert_true(chosen >= 0 && chosen < 4); /* step 0: exactly one pod, the decision's */
	assert_non_null(strstr(morpheus_plan_step_pods(plan, 0), "pod"));
	morpheus_plan_step_nodes(plan, 1, allowed);
	for (size_t i = 0; i < n; i++)
		if (allowed[i])
			pods1[pod_of(e, i)] = 1;
	for (int p = 0; p < 4; p++) /* step 1: every other pod, never the decision's again */
		assert_int_equal(pods1[p], p != chosen);
	/* Past the last step: nothing allowed. */
	morpheus_plan_step_nodes(plan, 2, allowed);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(allowed[i], 0);
	morpheus_plan_destroy(&plan);
	assert_null(plan);
	free(all);
	free(allowed);
	morpheus_engine_close(&e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_bad_value_is_an_input_error),
		cmocka_unit_test(a_missing_file_is_an_input_error),
		cmocka_unit_test(nothing_free_is_pending_and_too_much_is_impossible),
		cmocka_unit_test(an_unwritable_ledger_is_a_system_error),
		cmocka_unit_test(the_plan_offers_the_decision_then_every_other_pod),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
