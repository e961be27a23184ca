// SPDX-License-Identifier: GPL-2.0
/*
 * A deliberate data race, for make check DEBUG=kcsan (kcsan-reports.sh):
 * one kernel thread writes a plain int, another reads it, each on a CPU
 * of its own.  KCSAN must report it, or a run without a report proves
 * nothing: the guest would not be running threads at the same moment, or
 * KCSAN would not be watching.  A test module, never part of the series.
 *
 * Neither the threads' functions nor the module may have "kcsan_" in their
 * names: KCSAN drops a frame whose symbol, module included ("race_writer
 * [kcsan_race]"), has it, as its own runtime's, and would title the race
 * after kthread().
 */

#include <linux/cpumask.h>
#include <linux/err.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/sched.h>

static int race_control_value;
static unsigned int race_control_sum;
static struct task_struct *race_control_threads[2];

static int race_writer(void *arg)
{
	while (!kthread_should_stop()) {
		race_control_value++;	/* plain, racing the reader */
		cond_resched();
	}
	return 0;
}

static int race_reader(void *arg)
{
	unsigned int sum = 0;

	while (!kthread_should_stop()) {
		sum += race_control_value;	/* plain, racing the writer */
		cond_resched();
	}
	WRITE_ONCE(race_control_sum, sum);
	return 0;
}

static int __init race_control_init(void)
{
	int (*const fn[2])(void *) = { race_writer, race_reader };
	unsigned int cpu = 0;
	int i;

	for (i = 0; i < 2; i++) {
		race_control_threads[i] = kthread_create_on_cpu(fn[i], NULL, cpu,
							      "race_control/%u");
		if (IS_ERR(race_control_threads[i])) {
			int err = PTR_ERR(race_control_threads[i]);

			while (--i >= 0)
				kthread_stop(race_control_threads[i]);
			return err;
		}
		wake_up_process(race_control_threads[i]);
		/* the next online CPU, or the same one on a single CPU */
		cpu = cpumask_next(cpu, cpu_online_mask);
		if (cpu >= nr_cpu_ids)
			cpu = 0;
	}
	return 0;
}

static void __exit race_control_exit(void)
{
	kthread_stop(race_control_threads[0]);
	kthread_stop(race_control_threads[1]);
}

module_init(race_control_init);
module_exit(race_control_exit);
MODULE_DESCRIPTION("A deliberate data race that KCSAN must report (make check DEBUG=kcsan)");
MODULE_LICENSE("GPL");
