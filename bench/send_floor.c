// The floor under CPU per delivered update: sender CPU per send() of an N-byte
// message over loopback TCP to a reader on the other core.
//
//   gcc -O2 -Wall -Wextra -o /tmp/send_floor bench/send_floor.c
//
//   /tmp/send_floor SIZE CONNS
//       back to back: 500,000 sends round-robin over CONNS connections to a
//       reader that spins on non-blocking recv(). Prints
//       "370-byte sends over 1000 connections: 1.23 us of sender CPU per send".
//
//   /tmp/send_floor SIZE CONNS ROUND_MS [ROUNDS]
//       the shape of a fan-out: one SIZE-byte message to every connection per
//       round, rounds ROUND_MS apart (absolute CLOCK_MONOTONIC sleeps), ROUNDS
//       measured rounds (400) after 20 warm-up rounds. The reader sleeps in
//       epoll_wait() on all its sockets (level-triggered, each ready socket read
//       until EAGAIN) like a real client process, so every arrival's wake-up is
//       charged to the sender as in a real run. Prints the human line
//       "480-byte sends over 500 connections in rounds 12 ms apart: 6.10 us of sender CPU per send"
//       then one JSON line (the last line of the output):
//       {"size":480,"connections":500,"roundMs":12,"rounds":400,"lateRounds":0,"usPerSend":6.100}
//       lateRounds: rounds whose start time had already passed when the
//       previous round's sends were done (the sender could not keep up).
//
//   /tmp/send_floor SIZE CONNS ROUND_MS ROUNDS uring
//       (built with -DWITH_URING ... -luring, Debian liburing-dev) the same
//       rounds, each round's sends submitted through io_uring in chunks of
//       256 (one io_uring_enter each) as `tandem --sends io_uring` does. The
//       JSON line then carries "sends":"io_uring".
//
// The sender is pinned to core 0 and the reader to core 1 (`make bench` also
// runs it under `taskset -c 0`). The sender's CPU is user+sys from
// getrusage(RUSAGE_SELF), over the measured sends only; TCP_NODELAY is set on
// the sender's sockets. RLIMIT_NOFILE is raised to its hard limit first.
#define _GNU_SOURCE
#ifdef WITH_URING
#include <liburing.h>
#endif
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sched.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>
#include <time.h>

#define WARMUP_ROUNDS 20
#define DEFAULT_ROUNDS 400

static void pin(int c){cpu_set_t s;CPU_ZERO(&s);CPU_SET(c,&s);sched_setaffinity(0,sizeof s,&s);}

static void die(const char *what){fprintf(stderr,"send_floor: %s: %s\n",what,strerror(errno));exit(1);}

static void raise_nofile(void){
 struct rlimit r; if(getrlimit(RLIMIT_NOFILE,&r)==0 && r.rlim_cur<r.rlim_max){r.rlim_cur=r.rlim_max; setrlimit(RLIMIT_NOFILE,&r);}
}

static double cpu_seconds(const struct rusage *r0,const struct rusage *r1){
 return (r1->ru_utime.tv_sec-r0->ru_utime.tv_sec)+(r1->ru_utime.tv_usec-r0->ru_utime.tv_usec)/1e6
       +(r1->ru_stime.tv_sec-r0->ru_stime.tv_sec)+(r1->ru_stime.tv_usec-r0->ru_stime.tv_usec)/1e6;
}

// CONNS loopback connections: cs[i] the reader's end, ss[i] the sender's (TCP_NODELAY).
static void connect_all(int conns,int *cs,int *ss,int checked){
 int ls=socket(AF_INET,SOCK_STREAM,0); struct sockaddr_in a={.sin_family=AF_INET,.sin_port=0,.sin_addr.s_addr=htonl(0x7f000001)};
 if(checked && ls<0) die("socket");
 if(bind(ls,(void*)&a,sizeof a)<0 && checked) die("bind");
 if(listen(ls,4096)<0 && checked) die("listen");
 socklen_t l=sizeof a; getsockname(ls,(void*)&a,&l);
 for(int i=0;i<conns;i++){
  cs[i]=socket(AF_INET,SOCK_STREAM,0); if(checked && cs[i]<0) die("socket (raise ulimit -n?)");
  if(connect(cs[i],(void*)&a,sizeof a)<0 && checked) die("connect");
  ss[i]=accept(ls,0,0); if(checked && ss[i]<0) die("accept (raise ulimit -n?)");
  int one=1; setsockopt(ss[i],IPPROTO_TCP,TCP_NODELAY,&one,sizeof one);
 }
 close(ls);
}

// The original mode, unchanged: back-to-back sends, a spinning reader.
static int back_to_back(int size,int conns){
 int total=500000;
 int *cs=malloc(sizeof(int)*conns), *ss=malloc(sizeof(int)*conns);
 connect_all(conns,cs,ss,0);
 pid_t p=fork(); if(p==0){pin(1); char buf[65536]; // reader: epoll-free round robin nonblocking
   long got=0; long want=(long)total*size; while(got<want){for(int i=0;i<conns;i++){ssize_t n=recv(cs[i],buf,sizeof buf,MSG_DONTWAIT); if(n>0)got+=n;}} _exit(0);}
 pin(0); char *msg=malloc(size); memset(msg,'x',size); struct rusage r0,r1; getrusage(RUSAGE_SELF,&r0);
 for(int k=0;k<total;k++){ send(ss[k%conns],msg,size,MSG_NOSIGNAL); }
 getrusage(RUSAGE_SELF,&r1); waitpid(p,0,0);
 double cpu=cpu_seconds(&r0,&r1);
 printf("%d-byte sends over %d connections: %.2f us of sender CPU per send\n",size,conns,cpu/total*1e6); return 0;
}

// The reader of the round mode: sleeps in epoll_wait on every socket, reads
// each ready one until EAGAIN; done when every connection is closed.
static void reader(int conns,const int *cs){
 pin(1);
 int ep=epoll_create1(0); if(ep<0) die("epoll_create1");
 for(int i=0;i<conns;i++){
  struct epoll_event ev={.events=EPOLLIN,.data.fd=cs[i]};
  if(epoll_ctl(ep,EPOLL_CTL_ADD,cs[i],&ev)<0) die("epoll_ctl");
 }
 static char buf[65536]; struct epoll_event evs[1024]; int open=conns;
 while(open>0){
  int n=epoll_wait(ep,evs,1024,-1);
  if(n<0){ if(errno==EINTR) continue; die("epoll_wait"); }
  for(int k=0;k<n;k++){
   int fd=evs[k].data.fd;
   for(;;){
    ssize_t r=recv(fd,buf,sizeof buf,MSG_DONTWAIT);
    if(r>0) continue;
    if(r==0 || (errno!=EAGAIN && errno!=EWOULDBLOCK && errno!=EINTR)){ epoll_ctl(ep,EPOLL_CTL_DEL,fd,0); close(fd); open--; }
    if(r<0 && errno==EINTR) continue;
    break;
   }
  }
 }
 _exit(0);
}

static void add_ms(struct timespec *t,double ms){
 long long ns=(long long)t->tv_nsec+(long long)(ms*1e6);
 t->tv_sec+=ns/1000000000LL; t->tv_nsec=ns%1000000000LL;
}

static int before(const struct timespec *a,const struct timespec *b){
 return a->tv_sec<b->tv_sec || (a->tv_sec==b->tv_sec && a->tv_nsec<b->tv_nsec);
}

#ifdef WITH_URING
// One round's sends through io_uring, in chunks of 256: what `tandem --sends io_uring` does.
static void uring_round(struct io_uring *ring,const int *ss,int conns,const char *msg,int size){
 for(int i=0;i<conns;){
  int n=0;
  for(;n<256 && i<conns;n++,i++){
   struct io_uring_sqe *sqe=io_uring_get_sqe(ring);
   io_uring_prep_send(sqe,ss[i],msg,size,MSG_NOSIGNAL|MSG_DONTWAIT);
  }
  io_uring_submit_and_wait(ring,n);
  struct io_uring_cqe *cqe; unsigned head, seen=0;
  io_uring_for_each_cqe(ring,head,cqe){ if(cqe->res!=size){fprintf(stderr,"send_floor: short io_uring send (%d)\n",cqe->res);exit(1);} seen++; }
  io_uring_cq_advance(ring,seen);
 }
}
#endif

static int rounds_mode(int size,int conns,double round_ms,int rounds,int uring){
 int *cs=malloc(sizeof(int)*conns), *ss=malloc(sizeof(int)*conns);
 if(!cs||!ss){fprintf(stderr,"send_floor: out of memory\n");return 1;}
 connect_all(conns,cs,ss,1);
 pid_t p=fork(); if(p<0) die("fork");
 if(p==0){
  prctl(PR_SET_PDEATHSIG,SIGKILL);
  for(int i=0;i<conns;i++) close(ss[i]);  // EOF reaches the reader when the sender closes its ends
  reader(conns,cs);
 }
 for(int i=0;i<conns;i++) close(cs[i]);
 pin(0);
 char *msg=malloc(size); memset(msg,'x',size);
#ifdef WITH_URING
 struct io_uring ring;
 if(uring && io_uring_queue_init(256,&ring,0)<0){fprintf(stderr,"send_floor: io_uring_queue_init failed\n");return 1;}
#else
 if(uring){fprintf(stderr,"send_floor: built without -DWITH_URING\n");return 2;}
#endif
 struct rusage r0,r1; memset(&r0,0,sizeof r0);
 struct timespec next,now; clock_gettime(CLOCK_MONOTONIC,&next); add_ms(&next,100); // let the reader reach epoll_wait
 int late=0, total_rounds=WARMUP_ROUNDS+rounds;
 for(int r=0;r<total_rounds;r++){
  if(r>=WARMUP_ROUNDS){ clock_gettime(CLOCK_MONOTONIC,&now); if(!before(&now,&next)) late++; }
  while(clock_nanosleep(CLOCK_MONOTONIC,TIMER_ABSTIME,&next,0)==EINTR){}
  if(r==WARMUP_ROUNDS) getrusage(RUSAGE_SELF,&r0);
#ifdef WITH_URING
  if(uring){ uring_round(&ring,ss,conns,msg,size); add_ms(&next,round_ms); continue; }
#endif
  for(int i=0;i<conns;i++){
   ssize_t off=0;
   while(off<size){
    ssize_t n=send(ss[i],msg+off,size-off,MSG_NOSIGNAL);
    if(n<0){ if(errno==EINTR) continue; kill(p,SIGKILL); die("send"); }
    off+=n;
   }
  }
  add_ms(&next,round_ms);
 }
 getrusage(RUSAGE_SELF,&r1);
 for(int i=0;i<conns;i++) close(ss[i]);
 int status=0; waitpid(p,&status,0);
 if(!WIFEXITED(status) || WEXITSTATUS(status)!=0){fprintf(stderr,"send_floor: the reader failed\n");return 1;}
 double us=cpu_seconds(&r0,&r1)/((double)rounds*conns)*1e6;
 printf("%d-byte sends over %d connections in rounds %g ms apart: %.2f us of sender CPU per send\n",size,conns,round_ms,us);
 printf("{\"size\":%d,\"connections\":%d,\"roundMs\":%g,\"rounds\":%d,\"lateRounds\":%d,\"usPerSend\":%.3f%s}\n",
        size,conns,round_ms,rounds,late,us,uring?",\"sends\":\"io_uring\"":"");
 return 0;
}

int main(int argc,char**argv){
 int size=argc>1?atoi(argv[1]):370; int conns=argc>2?atoi(argv[2]):1000;
 raise_nofile();
 if(size<1 || conns<1){fprintf(stderr,"usage: send_floor SIZE CONNS [ROUND_MS [ROUNDS [uring]]]\n");return 2;}
 if(argc<=3) return back_to_back(size,conns);
 double round_ms=atof(argv[3]); int rounds=argc>4?atoi(argv[4]):DEFAULT_ROUNDS;
 if(!(round_ms>0) || rounds<1){fprintf(stderr,"usage: send_floor SIZE CONNS [ROUND_MS [ROUNDS]]\n");return 2;}
 int uring=argc>5 && strcmp(argv[5],"uring")==0;
 return rounds_mode(size,conns,round_ms,rounds,uring);
}
