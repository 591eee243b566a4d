/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* tos-sniff: prints the IP TOS byte of the RoCE v2 packets (UDP to port
 * 4791) an interface sends and receives, for lab scenarios that check a
 * --tos reaches the wire (the guest has no tcpdump). Test-only; needs
 * CAP_NET_RAW (the lab's guests run as root).
 *
 * usage: tos-sniff IFACE SECONDS MAX
 * Prints "listening on IFACE" once the socket is bound, then per packet
 *   roce out|in src=A dst=B tos=0xNN qp=0xNNNNNN kind=mad|data
 * (qp: the BTH's destination QP; QP 1 carries the CM's MADs), and exits 0
 * after SECONDS or MAX packets, whichever comes first. Soft-RoCE's own
 * transmissions do not reach a packet socket in the lab's guests: watch
 * the receiving host for what a host sends. */
#include <arpa/inet.h>
#include <net/ethernet.h>
#include <netpacket/packet.h>
#include <net/if.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define ROCE_V2_PORT 4791
#define IP_MIN 20
#define UDP_LEN 8
#define BTH_LEN 12

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

/* One IPv4 packet (no link header: a SOCK_DGRAM packet socket); returns
 * 1 when it was RoCE v2 and printed. */
static int show(const unsigned char *p, size_t len, int outgoing)
{
	size_t ihl;
	const unsigned char *udp, *bth;
	char src[INET_ADDRSTRLEN], dst[INET_ADDRSTRLEN];
	unsigned qp;

	if (len < IP_MIN || p[0] >> 4 != 4 || p[9] != 17)
		return 0;
	ihl = (size_t)(p[0] & 0xf) * 4;
	if (ihl < IP_MIN || len < ihl + UDP_LEN + BTH_LEN)
		return 0;
	udp = p + ihl;
	if ((udp[2] << 8 | udp[3]) != ROCE_V2_PORT)
		return 0;
	bth = udp + UDP_LEN;
	qp = (unsigned)bth[5] << 16 | (unsigned)bth[6] << 8 | bth[7];
	inet_ntop(AF_INET, p + 12, src, sizeof(src));
	inet_ntop(AF_INET, p + 16, dst, sizeof(dst));
	printf("roce %s src=%s dst=%s tos=0x%02x qp=0x%06x kind=%s\n", outgoing ? "out" : "in",
	       src, dst, p[1], qp, qp == 1 ? "mad" : "data");
	return 1;
}

int main(int argc, char **argv)
{
	struct sockaddr_ll sll = { .sll_family = AF_PACKET, .sll_protocol = htons(ETHERTYPE_IP) };
	unsigned char buf[2048];
	long long end;
	long max, seen = 0;
	int fd;

	if (argc != 4 || !(sll.sll_ifindex = (int)if_nametoindex(argv[1]))) {
		fprintf(stderr, "usage: tos-sniff IFACE SECONDS MAX (an existing IFACE)\n");
		return 2;
	}
	end = now_ms() + atol(argv[2]) * 1000;
	max = atol(argv[3]);
	fd = socket(AF_PACKET, SOCK_DGRAM, htons(ETHERTYPE_IP));
	if (fd < 0 || bind(fd, (struct sockaddr *)&sll, sizeof(sll))) {
		perror("tos-sniff: packet socket");
		return 1;
	}
	printf("listening on %s\n", argv[1]);
	fflush(stdout);
	while (seen < max) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		struct sockaddr_ll from;
		socklen_t fl = sizeof(from);
		long long left = end - now_ms();
		ssize_t n;

		if (left <= 0)
			break;
		if (poll(&pfd, 1, (int)left) <= 0)
			continue;
		n = recvfrom(fd, buf, sizeof(buf), 0, (struct sockaddr *)&from, &fl);
		if (n > 0 && show(buf, (size_t)n, from.sll_pkttype == PACKET_OUTGOING)) {
			seen++;
			fflush(stdout);
		}
	}
	close(fd);
	return 0;
}
