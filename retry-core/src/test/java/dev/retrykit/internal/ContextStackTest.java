package dev.retrykit.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import dev.retrykit.RetryContext;
import dev.retrykit.RetryTemplate;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class ContextStackTest {

	@Test
	void everyThreadSeesItsOwnStackEvenWhenThreadIdsShareACacheSlot() throws Exception {
		RetryTemplate template = RetryTemplate.builder().build();
		int threads = 1500;
		AtomicInteger wrong = new AtomicInteger();
		List<Thread> started = new ArrayList<>();
		for (int i = 0; i < threads; i++) {
			Thread thread = new Thread(() -> {
				ContextStack own = ContextStack.get();
				for (int call = 0; call < 20; call++) {
					template.execute(context -> {
						if (RetryContext.current() != context || ContextStack.get() != own) {
							wrong.incrementAndGet();
						}
						return null;
					});
				}
			});
			started.add(thread);
			thread.start();
			if (started.size() == 8) {
				for (Thread running : started) {
					running.join();
				}
				started.clear();
			}
		}
		for (Thread running : started) {
			running.join();
		}
		assertThat(wrong).hasValue(0);
		assertThat(template.getMetrics().getSuccessfulCallsWithoutRetry()).isEqualTo(threads * 20L);
	}

}
