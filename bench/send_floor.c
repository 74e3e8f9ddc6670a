// The floor under CPU per delivered update: sender CPU per send() of an N-byte
// message over loopback TCP, round-robin over C connections, to a reader on
// the other core. gcc -O2 -o /tmp/send_floor bench/send_floor.c && /tmp/send_floor 370 1000
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sched.h>
#include <sys/socket.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>
#include <time.h>
static void pin(int c){cpu_set_t s;CPU_ZERO(&s);CPU_SET(c,&s);sched_setaffinity(0,sizeof s,&s);}
int main(int argc,char**argv){int size=argc>1?atoi(argv[1]):370; int conns=argc>2?atoi(argv[2]):1000; int total=500000;
 int ls=socket(AF_INET,SOCK_STREAM,0); struct sockaddr_in a={.sin_family=AF_INET,.sin_port=0,.sin_addr.s_addr=htonl(0x7f000001)}; bind(ls,(void*)&a,sizeof a); listen(ls,4096); socklen_t l=sizeof a; getsockname(ls,(void*)&a,&l);
 int *cs=malloc(sizeof(int)*conns), *ss=malloc(sizeof(int)*conns);
 for(int i=0;i<conns;i++){cs[i]=socket(AF_INET,SOCK_STREAM,0); connect(cs[i],(void*)&a,sizeof a); ss[i]=accept(ls,0,0); int one=1; setsockopt(ss[i],IPPROTO_TCP,TCP_NODELAY,&one,sizeof one);}
 pid_t p=fork(); if(p==0){pin(1); char buf[65536]; // reader: epoll-free round robin nonblocking
   long got=0; long want=(long)total*size; while(got<want){for(int i=0;i<conns;i++){ssize_t n=recv(cs[i],buf,sizeof buf,MSG_DONTWAIT); if(n>0)got+=n;}} _exit(0);}
 pin(0); char *msg=malloc(size); memset(msg,'x',size); struct rusage r0,r1; getrusage(RUSAGE_SELF,&r0);
 for(int k=0;k<total;k++){ send(ss[k%conns],msg,size,MSG_NOSIGNAL); }
 getrusage(RUSAGE_SELF,&r1); waitpid(p,0,0);
 double cpu=(r1.ru_utime.tv_sec-r0.ru_utime.tv_sec)+(r1.ru_utime.tv_usec-r0.ru_utime.tv_usec)/1e6+(r1.ru_stime.tv_sec-r0.ru_stime.tv_sec)+(r1.ru_stime.tv_usec-r0.ru_stime.tv_usec)/1e6;
 printf("%d-byte sends over %d connections: %.2f us of sender CPU per send\n",size,conns,cpu/total*1e6); return 0;}
