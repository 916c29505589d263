package dev.retrykit.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import dev.retrykit.context.RetryContext;
import dev.retrykit.RetryTemplate;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class ContextStackTests {

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
						if (ContextStack.current() != context || ContextStack.get() != own) {
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

	@Test
	void pooledAndCachedContextsNestDeeperThanTheInitialStackAndUnwindInOrder() throws Exception {
		RetryTemplate template = RetryTemplate.builder().name("nested").build();
		List<String> chains = new ArrayList<>();
		nest(template, 10, chains);
		assertThat(chains).hasSize(1);
		// depth 10 first; stateful (cached) and stateless (pooled) contexts alternate
		assertThat(chains.get(0)).isEqualTo("s9>p8>s7>p6>s5>p4>s3>p2>s1>p0");
		assertThat(ContextStack.current()).isNull();
		assertThat(ContextStack.get().top()).isNull();
	}

	private static void nest(RetryTemplate template, int remaining, List<String> chains) throws Exception {
		if (remaining == 0) {
			StringBuilder chain = new StringBuilder();
			for (RetryContext context = ContextStack.current(); context != null; context = context.getParent()) {
				chain.append((chain.length() == 0) ? "" : ">").append(context.getAttribute("at"));
			}
			chains.add(chain.toString());
			return;
		}
		int depth = 10 - remaining;
		dev.retrykit.RetryCallback<Void, Exception> body = context -> {
			context.setAttribute("at", ((depth % 2 == 0) ? "p" : "s") + depth);
			RetryContext before = ContextStack.current();
			nest(template, remaining - 1, chains);
			assertThat(ContextStack.current()).isSameAs(before).isSameAs(context);
			return null;
		};
		if (depth % 2 == 0) {
			template.execute(body);
		}
		else {
			template.execute(body, dev.retrykit.RetryState.of("key-" + depth));
		}
	}

}
