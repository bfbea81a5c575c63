/* test_doctor.c: the kernel-log scan for mlx5 firmware command timeouts
 * (matched by function name, reference section 5), the PCIe speed parser
 * and the idle-drops verdict. The checks themselves run in tests/integration/52-doctor.t. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "doctor.h"
#include "os/kernlog.h"
#include "os/netcounters.h"

/* /dev/kmsg records become dmesg's message lines: the "prio,seq,usec,flags;"
 * header and the " KEY=value" continuation lines go. */
static void test_kmsg_records(void **state)
{
	static const char raw[] = "6,812,1000000,-;mlx5_core 0000:af:00.0: firmware version: 16.29.1030\n"
				  " SUBSYSTEM=pci\n"
				  " DEVICE=+pci:0000:af:00.0\n"
				  "3,813,4711123456,-;mlx5_core 0000:af:00.0: wait_func:1133:(pid 97972): "
				  "ENABLE_HCA(0x104) timeout\n"
				  "4,814,4712000000,c;a record without KEY=value lines";
	char *text = NULL;
	unsigned n = 0;

	(void)state;
	assert_int_equal(kernlog_from_kmsg(raw, sizeof(raw) - 1, &text), 0);
	assert_string_equal(text,
			    "mlx5_core 0000:af:00.0: firmware version: 16.29.1030\n"
			    "mlx5_core 0000:af:00.0: wait_func:1133:(pid 97972): ENABLE_HCA(0x104) timeout\n"
			    "a record without KEY=value lines\n");
	assert_int_equal(doctor_scan_kernel_log(text, &n, NULL), 0);
	assert_int_equal(n, 1);
	free(text);
	assert_int_equal(kernlog_from_kmsg("", 0, &text), 0);
	assert_string_equal(text, "");
	free(text);
}

static void test_kernel_log(void **state)
{
	const char *log =
	    "[ 1.0] mlx5_core 0000:0b:06.0: firmware version: 16.29.1030\n"
	    "[ 2.0] mlx5_core 0000:0b:06.0: wait_func:1133:(pid 97972): ENABLE_HCA(0x104) timeout. Will "
	    "cause a leak of a command resource\n"
	    "[ 3.0] mlx5_core 0000:56:00.0: wait_func_handle_exec_timeout:1159:(pid 72061): cmd[0]: "
	    "ACCESS_REG(0x805) No done completion\n"
	    "[ 4.0] mlx5_core 0000:56:00.0: mlx5_cmd_comp_handler:1709:(pid 0): Command completion arrived "
	    "after timeout (entry idx = 0).\n"
	    "[ 5.0] mlx5_core 0000:18:00.0: probe_one:1686:(pid 97972): mlx5_init_one failed with error code "
	    "-110\n"
	    "[ 6.0] mlx5_core 0000:18:00.0: mlx5_cmd_comp_handler:1709:(pid 0): completion on time\n"
	    "[ 7.0] ixgbe 0000:03:00.0: wait_func timeout (another driver)\n"
	    "[ 8.0] mlx5_core 0000:18:00.0: wait_func:1200:(pid 1) line numbers differ";
	unsigned n = 0;
	char *first = NULL;

	(void)state;
	assert_int_equal(doctor_scan_kernel_log(log, &n, &first), 0);
	assert_int_equal(n, 4);
	assert_string_equal(
	    first, "[ 2.0] mlx5_core 0000:0b:06.0: wait_func:1133:(pid 97972): ENABLE_HCA(0x104) timeout. "
		   "Will cause a leak of a command resource");
	free(first);
	assert_int_equal(doctor_scan_kernel_log("", &n, NULL), 0);
	assert_int_equal(n, 0);
	/* A wait_func timeout line with a different line number still counts. */
	assert_int_equal(
	    doctor_scan_kernel_log(
		"mlx5_core 0000:af:00.0: wait_func:1190:(pid 5): QUERY_VPORT(0x750) timeout.\n", &n, NULL),
	    0);
	assert_int_equal(n, 1);
}

static void test_pcie_speed(void **state)
{
	double v;

	(void)state;
	assert_int_equal(doctor_parse_pcie_speed("8.0 GT/s PCIe", &v), 0);
	assert_true(v == 8.0);
	assert_int_equal(doctor_parse_pcie_speed("16.0 GT/s PCIe", &v), 0);
	assert_true(v == 16.0);
	assert_int_equal(doctor_parse_pcie_speed("2.5 GT/s", &v), 0);
	assert_true(v == 2.5);
	assert_int_equal(doctor_parse_pcie_speed("Unknown", &v), -EINVAL);
	assert_int_equal(doctor_parse_pcie_speed("8.0 Gb/s", &v), -EINVAL);
	assert_int_equal(doctor_parse_pcie_speed(NULL, &v), -EINVAL);
	assert_true(streq(doctor_status_to_string(DOCTOR_WARN), "warn"));
	assert_null(doctor_status_to_string(_DOCTOR_STATUS_MAX));
}

/* idle-drops: a watched kernel counter that rose while idle warns with its
 * rise and what it means; counters that stayed (or are not watched) pass. */
static void test_idle_drops(void **state)
{
	struct netcounters a = {0}, b = {0};
	char *detail = NULL;

	(void)state;
	assert_int_equal(netcounters_set(&a, "UdpRcvbufErrors", 100), 0);
	assert_int_equal(netcounters_set(&a, "softnet.dropped", 7), 0);
	assert_int_equal(netcounters_set(&a, "UdpInDatagrams", 1000), 0);
	assert_int_equal(netcounters_set(&b, "UdpRcvbufErrors", 100), 0);
	assert_int_equal(netcounters_set(&b, "softnet.dropped", 7), 0);
	assert_int_equal(netcounters_set(&b, "UdpInDatagrams", 5000), 0); /* not a drop */
	assert_int_equal(doctor_idle_drops(&a, &b, 1000, &detail), DOCTOR_PASS);
	assert_string_equal(
	    detail, "no kernel drop counter rose in 1000 ms (UDP, IP, receive backlog, qdisc, device)");
	free(detail);

	assert_int_equal(netcounters_set(&b, "UdpRcvbufErrors", 112), 0);
	assert_int_equal(netcounters_set(&b, "softnet.dropped", 9), 0);
	assert_int_equal(doctor_idle_drops(&a, &b, 1000, &detail), DOCTOR_WARN);
	assert_string_equal(detail,
			    "kernel drop counters rising while idle: UdpRcvbufErrors +12 (a UDP socket's "
			    "receive buffer overflowed); softnet.dropped +2 (a CPU's receive backlog was "
			    "full (host-wide))");
	free(detail);
	netcounters_done(&a);
	netcounters_done(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_kmsg_records),
	    cmocka_unit_test(test_kernel_log),
	    cmocka_unit_test(test_pcie_speed),
	    cmocka_unit_test(test_idle_drops),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
