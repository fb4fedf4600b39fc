/* What the REPL (lua/gpumat/repl.lua) needs from C and Lua cannot do:
 * Ctrl-C handling in both of its states, and waiting for input so a
 * Ctrl-C at the prompt is seen.  lua5.4's own REPL leaves SIGINT at its
 * default action outside a running chunk, so a Ctrl-C at the prompt ends
 * the process and the session is lost; Python, IPython and trepl discard
 * the line and prompt again, which is what gpumat's REPL does.
 *   core._repl_signal("prompt")  SIGINT only sets a flag (and interrupts
 *                               a wait for input)
 *   core._repl_signal("run")     SIGINT stops the running chunk with the
 *                               error "interrupted!", as lua.c does
 *   core._repl_signal("default") SIGINT's default action again
 *   core._repl_wait_input()      -> true when stdin has input (or EOF),
 *                               false when a Ctrl-C came first
 *   core._repl_blocked(f)       f() with SIGINT held until it returns
 *   core._repl_stdin_tty()       -> whether stdin is a terminal
 *   core._repl_release()         -> LUA_RELEASE, LUA_COPYRIGHT (the banner)
 *   core._repl_readline_remove() readline's rl_callback_handler_remove, called
 *                               directly (see below) -> whether it was found */
#include <dlfcn.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "util.h"

static volatile sig_atomic_t interrupted;
/* the REPL's thread: a SIGINT may be delivered to any thread that does not
 * block it (the thread pool's, the emulated device's stream workers), and
 * only the REPL's own thread sees its wait for input end with EINTR */
static pthread_t repl_thread;
/* the state whose running chunk a Ctrl-C stops (lua.c's globalL) */
static lua_State *volatile running_L;

static void stop_hook(lua_State *L, lua_Debug *ar) {
  (void)ar;
  lua_sethook(L, NULL, 0, 0);
  luaL_error(L, "interrupted!");
}

/* lua_sethook is the one Lua call that is safe in a signal handler (lua.c
 * relies on it the same way): the hook runs at the next instruction. */
static void on_sigint(int sig) {
  if (!pthread_equal(pthread_self(), repl_thread)) {
    pthread_kill(repl_thread, sig); /* async-signal-safe */
    return;
  }
  interrupted = 1;
  lua_State *L = running_L;
  if (L) lua_sethook(L, stop_hook, LUA_MASKCALL | LUA_MASKRET | LUA_MASKCOUNT, 1);
}

static int l_repl_signal(lua_State *L) {
  static const char *const modes[] = {"prompt", "run", "default", NULL};
  int mode = luaL_checkoption(L, 1, NULL, modes);
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sigemptyset(&sa.sa_mask);
  sa.sa_handler = mode == 2 ? SIG_DFL : on_sigint; /* no SA_RESTART: poll returns */
  repl_thread = pthread_self();
  running_L = mode == 1 ? L : NULL;
  if (mode != 1) lua_sethook(L, NULL, 0, 0);     /* a Ctrl-C after the chunk ended */
  interrupted = 0;
  if (sigaction(SIGINT, &sa, NULL) != 0) return luaL_error(L, "repl_signal: %s", strerror(errno));
  return 0;
}

static int l_repl_wait_input(lua_State *L) {
  struct pollfd p = {.fd = STDIN_FILENO, .events = POLLIN};
  for (;;) {
    if (interrupted) break;
    int n = poll(&p, 1, -1);
    if (n > 0) {
      lua_pushboolean(L, 1);
      return 1;
    }
    if (n < 0 && errno != EINTR) return luaL_error(L, "repl_wait_input: %s", strerror(errno));
  }
  interrupted = 0;
  lua_pushboolean(L, 0);
  return 1;
}

/* core._repl_blocked(f): f() with SIGINT blocked, for readline's
 * rl_callback_read_char: a Ctrl-C it caught itself would be cleaned up
 * twice (by readline, then by the REPL's handler path), so it stays
 * pending until f returns and then reaches on_sigint. */
static int l_repl_blocked(lua_State *L) {
  luaL_checktype(L, 1, LUA_TFUNCTION);
  sigset_t intr, old;
  sigemptyset(&intr);
  sigaddset(&intr, SIGINT);
  pthread_sigmask(SIG_BLOCK, &intr, &old);
  lua_settop(L, 1);
  int st = lua_pcall(L, 0, 0, 0);
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  if (st != LUA_OK) return lua_error(L);
  return 0;
}

static int l_repl_stdin_tty(lua_State *L) {
  lua_pushboolean(L, isatty(STDIN_FILENO));
  return 1;
}

static int l_repl_release(lua_State *L) {
  lua_pushstring(L, LUA_RELEASE);
  lua_pushstring(L, LUA_COPYRIGHT);
  return 2;
}

/* lua-readline's handler_remove closes its terminal stream first and only
 * then calls rl_callback_handler_remove, which restores the terminal by
 * writing to that stream (bracketed paste off, fflush): a write through a
 * closed FILE, which crashed the REPL now and then on a Ctrl-C at the prompt
 * (the one time the terminal is still prepared when the handler goes).  The
 * REPL calls readline's own function first, while the stream is open; the
 * library is already loaded by lua-readline (RTLD_NOLOAD finds it, loads
 * nothing), and gpumat links nothing of readline's. */
static int l_repl_readline_remove(lua_State *L) {
  static const char *const sonames[] = {"libreadline.so.8", "libreadline.so.7", "libreadline.so", NULL};
  int found = 0;
  for (int i = 0; sonames[i] && !found; i++) {
    void *h = dlopen(sonames[i], RTLD_LAZY | RTLD_NOLOAD);
    if (!h) continue;
    void (*remove)(void);
    *(void **)&remove = dlsym(h, "rl_callback_handler_remove");
    if (remove) {
      remove();
      found = 1;
    }
    dlclose(h);
  }
  lua_pushboolean(L, found);
  return 1;
}

void gml_open_repl(lua_State *L, int module_idx) {
  static const gml_reg fns[] = {
      {"_repl_signal", l_repl_signal, 1, NULL},
      {"_repl_wait_input", l_repl_wait_input, 0, NULL},
      {"_repl_release", l_repl_release, 0, NULL},
      {"_repl_stdin_tty", l_repl_stdin_tty, 0, NULL},
      {"_repl_blocked", l_repl_blocked, 1, NULL},
      {"_repl_readline_remove", l_repl_readline_remove, 0, NULL},
      {NULL, NULL, 0, NULL},
  };
  gml_register(L, module_idx, fns);
}
