// SPDX-License-Identifier: GPL-2.0
#include "audit/rdma.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <spawn.h>
#include <stdexcept>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

namespace roce
{
namespace
{

std::string command_line(const std::vector<std::string> &argv)
{
	std::string s;
	for (const auto &a : argv)
		s += (s.empty() ? "" : " ") + a;
	return s;
}

// A pipe whose ends close with it.
struct Pipe {
	int fd[2] = {-1, -1};

	Pipe()
	{
		if (pipe2(fd, O_CLOEXEC))
			throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
	}
	~Pipe()
	{
		close_end(0);
		close_end(1);
	}
	Pipe(const Pipe &) = delete;
	Pipe &operator=(const Pipe &) = delete;

	void close_end(int i)
	{
		if (fd[i] >= 0)
			close(fd[i]);
		fd[i] = -1;
	}
};

} // namespace

std::string run_program(const std::vector<std::string> &argv)
{
	if (argv.empty())
		throw std::runtime_error("run_program: no program");
	const std::string what = command_line(argv);
	std::vector<char *> args;
	for (const auto &a : argv)
		args.push_back(const_cast<char *>(a.c_str()));
	args.push_back(nullptr);

	Pipe out;
	posix_spawn_file_actions_t actions;
	posix_spawn_file_actions_init(&actions);
	posix_spawn_file_actions_adddup2(&actions, out.fd[1], STDOUT_FILENO);
	pid_t pid;
	const int err = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
	posix_spawn_file_actions_destroy(&actions);
	if (err)
		throw ProgramNotRun("cannot run " + argv[0] + ": " + std::strerror(err));
	out.close_end(1);

	std::string text;
	char buf[65536];
	for (;;) {
		const ssize_t n = read(out.fd[0], buf, sizeof(buf));
		if (n > 0)
			text.append(buf, static_cast<std::size_t>(n));
		else if (n == 0 || errno != EINTR)
			break;
	}
	int status;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			throw std::runtime_error("waitpid: " + std::string(std::strerror(errno)));
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		throw std::runtime_error(
		    "'" + what + "' failed (" +
		    (WIFEXITED(status) ? "exit status " + std::to_string(WEXITSTATUS(status))
		                       : "killed by signal " + std::to_string(WTERMSIG(status))) +
		    ")");
	return text;
}

} // namespace roce
