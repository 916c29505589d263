package dev.retrykit.scheduler;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;

/**
 * A thread-safe executor for tests that runs each task inline and records the task and the thread
 * that handed it over.
 */
final class RecordingExecutor implements Executor {

	private final List<Runnable> tasks = new ArrayList<>();

	private final List<Thread> callers = new ArrayList<>();

	@Override
	public void execute(Runnable command) {
		synchronized (this) {
			this.tasks.add(command);
			this.callers.add(Thread.currentThread());
		}
		command.run();
	}

	synchronized List<Runnable> tasks() {
		return List.copyOf(this.tasks);
	}

	synchronized List<Thread> callers() {
		return List.copyOf(this.callers);
	}

}
